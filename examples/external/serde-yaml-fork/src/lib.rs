// a fork, outside the example workspace

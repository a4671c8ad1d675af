#!/bin/sh
echo "deploying with ${DEPLOY_TOKEN:+a token}"

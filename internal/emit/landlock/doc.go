// Package landlock owns the Linux Landlock manifest: the mapping from RFD
// 076 capabilities to Landlock access rights, the split of broader grants
// around narrower rules so that the kernel never grants more than the
// policy, the named system baseline that lets ordinary programs start, TCP
// port rules, scopes, the environment allowlist, and the minimum ABI of
// every clause. The launcher reads the Manifest type defined here.
package landlock

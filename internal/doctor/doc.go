// Package doctor says which kernel features jp-policy exec uses are
// missing on this machine, what fails without each, and how to enable
// it: Landlock (and its ABI), seccomp filters, and unprivileged user
// namespaces (with the AppArmor profile Ubuntu 23.10+ needs, printed by
// Profile). Report is pure: the caller gathers Facts from the machine.
package doctor

//go:build !darwin

package sbpl

// HostDeveloperDir is DefaultDeveloperDir off macOS: a profile compiled
// here for a Mac assumes the Command Line Tools' location (compile on the
// Mac to get Xcode's, if that is the selected one).
func HostDeveloperDir() string { return DefaultDeveloperDir }

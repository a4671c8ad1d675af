// Package mountconsent records that the user typed `jp-policy mount`, so
// the compile that follows accepts the grants the mount added without a
// terminal: typing the mount was the consent (RFD D43 treats it as the
// approval of the target), and asking again, or requiring
// --accept-widening, would only teach users to pass that flag blindly.
//
// The record names each tool, rule path and mode the mount granted; it
// lives in jp-policy's own data directory (a protected path no tool can
// write), keyed by the workspace root, and is cleared by the compile that
// pins the result. A widening covers only exactly those grants: another
// rule, another capability, or a path the change reaches that JP116
// names (.git/hooks, .jp) still needs the usual consent.
package mountconsent

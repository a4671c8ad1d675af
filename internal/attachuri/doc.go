// Package attachuri owns RFD D03's attachment URIs: the canonical URI JP
// records for a file the user attaches. A file inside the workspace gets
// `file:///<workspace-relative path>`; a file outside gets
// `external:<sha256 hex of the canonical parent directory>/<filename>`, so
// no absolute path (user name, directory layout) enters shared
// conversation state, yet attaching the same file from the same place
// twice yields the same URI.
package attachuri

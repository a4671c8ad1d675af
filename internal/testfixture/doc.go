// Package testfixture locates the JP workspaces tests run against: the
// project's own fixture (testdata/fixtures/jp-layout, always present) and
// JP's upstream workspace config (../shared/fixtures/jp-upstream beside the
// repository, present in CI and absent on a fresh clone). Tests that need
// the upstream fixture skip with a one-line reason when it is missing, so
// `go test ./...` passes on a fresh clone and still covers the loader
// through the project's own fixture.
package testfixture

#!/usr/bin/env python3
"""Write N GitHub Actions workflows for bench/peers.sh to run actionlint on.

    workflows.py DIR N

DIR becomes a repository (a bare .git directory, which is how actionlint
finds the project) with .github/workflows/ci-<i>.yml: each
a realistic CI workflow (triggers with branch and path filters,
permissions, concurrency, env, a lint job, a test job with a matrix, a
build job that needs it and passes outputs, a release job gated on a
tag, shell steps with expressions), about the size of the policy a
20-tool JP workspace holds. Every file is clean under actionlint, so both
linters do their full work and exit 0.
"""
import os
import sys

TEMPLATE = """\
name: ci-{i}

on:
  push:
    branches: [main, 'release/**']
    paths: ['src/**', 'go.mod', 'go.sum', '.github/workflows/ci-{i}.yml']
  pull_request:
    branches: [main]
  workflow_dispatch:
    inputs:
      level:
        description: log level
        required: false
        default: info
        type: choice
        options: [debug, info, warn]

permissions:
  contents: read

concurrency:
  group: ci-{i}-${{{{ github.ref }}}}
  cancel-in-progress: true

env:
  COMPONENT: component-{i}
  GOFLAGS: -mod=readonly

jobs:
  lint:
    runs-on: ubuntu-latest
    timeout-minutes: 10
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      - name: vet
        run: |
          go vet ./...
          test -z "$(gofmt -l .)"

  test:
    needs: lint
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-latest, macos-latest]
        go: ['1.25', '1.26']
        include:
          - os: ubuntu-latest
            go: '1.26'
            coverage: true
    runs-on: ${{{{ matrix.os }}}}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: ${{{{ matrix.go }}}}
      - name: test
        env:
          LEVEL: ${{{{ inputs.level || 'info' }}}}
        run: go test -count=1 ./... -args -level="$LEVEL"
      - name: coverage
        if: ${{{{ matrix.coverage }}}}
        run: go test -coverprofile=cover.out ./...
      - uses: actions/upload-artifact@v4
        if: ${{{{ matrix.coverage }}}}
        with:
          name: coverage-{i}
          path: cover.out

  build:
    needs: test
    runs-on: ubuntu-latest
    outputs:
      digest: ${{{{ steps.sum.outputs.digest }}}}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      - name: build
        run: CGO_ENABLED=0 go build -o "bin/$COMPONENT" ./cmd/...
      - id: sum
        name: checksum
        run: echo "digest=$(sha256sum "bin/$COMPONENT" | cut -d' ' -f1)" >> "$GITHUB_OUTPUT"

  release:
    needs: build
    if: startsWith(github.ref, 'refs/tags/v')
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
      - name: announce
        env:
          DIGEST: ${{{{ needs.build.outputs.digest }}}}
          REF: ${{{{ github.ref_name }}}}
        run: echo "release $REF of $COMPONENT, digest $DIGEST"
"""


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: workflows.py DIR N")
    root, n = sys.argv[1], int(sys.argv[2])
    wf = os.path.join(root, ".github", "workflows")
    os.makedirs(wf, exist_ok=True)
    os.makedirs(os.path.join(root, ".git"), exist_ok=True)
    for i in range(1, n + 1):
        with open(os.path.join(wf, f"ci-{i}.yml"), "w") as f:
            f.write(TEMPLATE.format(i=i))


if __name__ == "__main__":
    main()

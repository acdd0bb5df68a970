#!/bin/bash
setup() {
  mkdir -p out
  cp -r src out/
  echo ready
}

teardown() {
  rm -rf out
  echo done
}

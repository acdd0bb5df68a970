#!/bin/bash
build() {
	make all
	make test
}

clean() {
	rm -rf out
	rm -rf tmp
}

deploy() {
    set -euo pipefail
    rsync -a out/ host:/srv
    ssh host restart
}

#!/bin/sh
# Lists the commits between two revisions as "<hash> <subject>", oldest first.
# Usage: commits.sh FROM [TO]
set -eu
from=${1:?usage: commits.sh FROM [TO]}
to=${2:-HEAD}
git log --reverse --no-merges --format='%h %s' "$from..$to"

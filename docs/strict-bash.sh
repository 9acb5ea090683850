# Sourced by the bash of every %%bash cell (BASH_ENV, set in conf.py): a failing command fails the build.
set -e -o pipefail

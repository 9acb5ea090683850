import sys

from volsched.cli import console

sys.exit(console())

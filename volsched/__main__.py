import sys

from volsched.cli import main

sys.exit(main())

"""The tests. They write Python's bytecode even where Python is told not to (PYTHONDONTWRITEBYTECODE
or -B, as on the 2-core test machine): without it every test worker and every process a test starts
(ono99 serve, ono99 connect, the CLI) compiled the same modules from source again; a worker's start
took 5.5 s of CPU instead of 2 s. The files go where Python puts them by default, in the
``__pycache__`` folders that .gitignore leaves out."""

import os
import sys

sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # and the processes the tests start

"""``python -m ono99_tui.front``: one SSH front worker of ``ono99 serve``."""

from .process import worker_main

raise SystemExit(worker_main())

from ctxscope.cli import main

raise SystemExit(main())

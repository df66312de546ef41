from krm_fn.cli import main

raise SystemExit(main())

from krm_fn.cli.main import main

raise SystemExit(main())

from ffind.cli import main

raise SystemExit(main())

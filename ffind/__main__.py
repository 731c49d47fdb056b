from ffind.frontends.cli import main

raise SystemExit(main())

from ffind.frontends.entry import main

raise SystemExit(main())

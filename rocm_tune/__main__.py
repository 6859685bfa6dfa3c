from rocm_tune.cli import main

raise SystemExit(main())

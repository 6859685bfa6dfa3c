"""One module per CLI subcommand: register(subparsers) and run(args) -> int."""

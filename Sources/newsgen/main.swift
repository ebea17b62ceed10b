import CLI
CLI.main()

import CLI
await CLI.main()

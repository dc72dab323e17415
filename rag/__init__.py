"""paperchat: cited answers over scientific abstracts. Importing this package does no work."""

// Markdown module

// YAML module

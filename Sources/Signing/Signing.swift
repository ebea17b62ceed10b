// Signing module

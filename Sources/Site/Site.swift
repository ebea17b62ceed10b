// Site module

// Hub module

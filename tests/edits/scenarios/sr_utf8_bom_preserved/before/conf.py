name = 'x'
size = 1

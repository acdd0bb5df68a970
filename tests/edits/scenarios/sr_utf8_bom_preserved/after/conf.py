name = 'x'
size = 2

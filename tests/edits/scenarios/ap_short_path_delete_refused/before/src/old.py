old = True

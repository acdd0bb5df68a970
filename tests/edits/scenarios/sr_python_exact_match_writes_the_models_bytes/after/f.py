def f(x):
    if x:
        log(x)  	# traced
        return 1
    return 0

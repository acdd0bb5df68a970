def f():  
    a = 1   
    b = 3
    return a + b

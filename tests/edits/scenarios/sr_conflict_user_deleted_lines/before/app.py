import os


def greet(name):
    return "hello " + name



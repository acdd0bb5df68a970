import os


def greet(name):
    return "hey " + name


def farewell(name):
    return "bye bye " + name  # user

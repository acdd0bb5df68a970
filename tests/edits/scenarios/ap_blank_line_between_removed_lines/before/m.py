import re


def old(s):
    s = s.strip()

    return s


def keep(s):
    return old(s)

import re


def keep(s):
    s = s.strip()

    return s

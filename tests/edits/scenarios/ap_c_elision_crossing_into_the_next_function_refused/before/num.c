int parse(const char *s)
{
    int n = 0;
    while (*s)
        n = n * 10 + (*s++ - '0');
    return n;
}

int twice(int x)
{
    int y = x * 2;
    return y;
}

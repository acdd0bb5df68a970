static int a(void)
{
	return 1;
}

static int b(void)
{
	return 2;
}

static int c(void)
{
	return 3;
}

/* vendored */
int vendored(int x)
{
    if (x > 0)
        return x;
    return 0;
}

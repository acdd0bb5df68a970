#include <stdio.h>

int main(void)
{
    int n = 3;
    n *= 2;
    printf("%d\n", n);
    return 0;
}

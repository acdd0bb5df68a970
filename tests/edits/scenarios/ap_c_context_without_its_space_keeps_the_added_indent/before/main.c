#include <stdio.h>

int main(void)
{
    int n = 3;
    printf("%d\n", n);
    return 0;
}

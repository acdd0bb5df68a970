"""`spark edit`: its arguments, the files and pipe front ends, one turn, --test."""

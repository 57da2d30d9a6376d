SELECT a, unnest(a), array_length(a, 1), a || 9, c[1] FROM arrtest;

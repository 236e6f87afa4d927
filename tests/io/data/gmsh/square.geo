// A 0.1 x 0.1 m square in the plane z = 0, coarse triangles (a 2D mesh).
lc = 0.04;
Point(1) = {0, 0, 0, lc};
l[] = Extrude {0.1, 0, 0} { Point{1}; };
s[] = Extrude {0, 0.1, 0} { Line{l[1]}; };

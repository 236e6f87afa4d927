// A 0.2 x 0.1 x 0.1 m beam, coarse tetrahedra, with a physical volume and a physical face.
lc = 0.06;
Point(1) = {0, 0, 0, lc};
l[] = Extrude {0.2, 0, 0} { Point{1}; };
s[] = Extrude {0, 0.1, 0} { Line{l[1]}; };
v[] = Extrude {0, 0, 0.1} { Surface{s[1]}; };
Physical Volume("beam") = {v[1]};
Physical Surface("clamped") = {s[1]};

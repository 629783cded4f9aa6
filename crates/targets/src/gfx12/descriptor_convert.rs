//! Descriptor conversion gfx1013 -> gfx1201 (the compute part). So far the buffer format
//! enum, which `tbuffer_*` instructions carry in their FORMAT field and buffer resources (V#)
//! in word 3: format numbers are those of the AMD fact tables
//! (`shared/facts/amd/descriptor_enums.csv`: gfx10 `IMG_FORMAT`, which is also the buffer
//! format, to gfx12 `BUF_FMT`, matched by name).

/// gfx1013 buffer format -> gfx1201 buffer format, for every name both tables have.
const BUF_FORMAT_GFX10_GFX12: [(u8, u8); 64] = [
    (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9),
    (10, 10), (11, 11), (12, 12), (13, 13), (14, 14), (15, 15), (16, 16), (17, 17), (18, 18), (19, 19),
    (20, 20), (21, 21), (22, 22), (23, 23), (24, 24), (25, 25), (26, 26), (27, 27), (28, 28), (29, 29),
    (36, 30), (43, 31), (44, 32), (45, 33), (48, 34), (49, 35), (50, 36), (51, 37), (52, 38), (53, 39),
    (54, 40), (55, 41), (56, 42), (57, 43), (58, 44), (59, 45), (60, 46), (61, 47), (62, 48), (63, 49),
    (64, 50), (65, 51), (66, 52), (67, 53), (68, 54), (69, 55), (70, 56), (71, 57), (72, 58), (73, 59),
    (74, 60), (75, 61), (76, 62), (77, 63),
];

/// The gfx1201 buffer format (`BUF_FMT_*`) with the same name as gfx1013 buffer format `f`
/// (`IMG_FORMAT_*` numbering), or None where gfx1201 has no such format (the 10_11_11 and
/// 11_11_10 integer and normalised forms, 10_10_10_2 scaled).
pub fn buffer_format_gfx12(f: u8) -> Option<u8> {
    BUF_FORMAT_GFX10_GFX12.iter().find(|&&(a, _)| a == f).map(|&(_, b)| b)
}

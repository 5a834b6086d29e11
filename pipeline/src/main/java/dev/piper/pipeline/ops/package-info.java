/**
 * Column operators beyond PIPER's set (RAP's table, TorchRec's and NVTabular's transforms), each a
 * pure function over a block's primitive column arrays: no objects per value, no boxing, the
 * caller's output arrays reused block after block. Their semantics are pinned to the reference
 * implementations named in each class and checked against their published vectors in the tests.
 */
package dev.piper.pipeline.ops;

// How the command-line tools set up the C library's allocator for batch work.
#ifndef TOOLS_ALLOCATOR_H_
#define TOOLS_ALLOCATOR_H_

namespace tools {

// Keeps freed blocks of up to 32 MiB in the heap for the next allocations instead of
// handing them back to the kernel. glibc maps each block of 128 KiB or more afresh (the
// read buffers of the table iterators, the write buffers of table files, ...) unless an
// earlier free of such a block happened to raise its threshold, and every page of a
// fresh mapping costs a fault and a zeroing: about 0.5 ms a MiB on the VMs measured
// (docs/PERFORMANCE.md). Call once, at the start of main.
void KeepFreedMemory();

}  // namespace tools

#endif  // TOOLS_ALLOCATOR_H_

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/fsp0prealloc_reserve.h
 The free-space reserve of ALTER TABLESPACE ... SET EXTENT_SIZE across
 statements and across chunks.

 A check made once per statement is not enough: two statements running at
 once both see the same free space, and a load (or the binary log) can take
 space while a statement runs. Once a chunk hits ENOSPC, InnoDB falls back
 to writing zeros until the file system is full, taking the space the
 binary log, redo log and temporary files need. So:
 - a statement claims, before its first chunk, every byte it still has to
   write; the claims of statements in flight on the same file system are
   counted as already used;
 - before every chunk the file system is asked again, and a chunk that
   would leave less than the reserve (innodb_extent_size_min_free_pct) free,
   once the other statements' claims are counted, is refused;
 - a claim shrinks as its chunks are written and is dropped when the
   statement ends.
 The file system is asked while the book's mutex is held, so a claim
 released by a finished chunk is never missing from both the free space
 read and the claims counted. A chunk half written may be counted twice
 (in the claim and as used space): the error is on the safe side. */

#ifndef fsp0prealloc_reserve_h
#define fsp0prealloc_reserve_h

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace fsp_prealloc {

/** Space on one file system, as statvfs() gives it. */
struct Fs_space {
  /** Bytes the server may still allocate (f_bavail x f_frsize). */
  uint64_t free_bytes{0};
  /** Size of the file system (f_blocks x f_frsize). */
  uint64_t total_bytes{0};
};

/** Reads a file system's space now.
@param[out]  space  free and total bytes
@return false if the file system cannot be asked */
using Fs_probe = std::function<bool(Fs_space *space)>;

/** What the book decided for a claim or a chunk. */
struct Grant {
  /** true: go on (also when the file system could not be asked). */
  bool granted{true};
  /** true: the probe answered, and the figures below are set. */
  bool probed{false};
  /** The growth asked for, in bytes. */
  uint64_t asked_bytes{0};
  /** What the probe said. */
  Fs_space fs;
  /** Bytes claimed by other statements on the file system, not written. */
  uint64_t others_bytes{0};
  /** Bytes that must stay free (min_free_pct of the file system). */
  uint64_t reserve_bytes{0};
};

/** The claims of the SET EXTENT_SIZE statements in flight, per file system.
One process-wide instance (reservations()); tests make their own. */
class Reservations {
 public:
  /** One statement's claim. */
  class Claim {
   public:
    /** Bytes claimed and not yet written. */
    uint64_t left() const { return m_left; }

   private:
    friend class Reservations;
    uint64_t m_fs_id{0};
    uint64_t m_left{0};
    bool m_open{false};
  };

  /** Claim the bytes a statement will write, before its first chunk.
  Granted when they fit in the free space less the other claims and leave
  the reserve free; when not granted nothing is claimed.
  @param[out]  claim         the statement's claim (granted only)
  @param[in]   fs_id         the file system (st_dev of the data file)
  @param[in]   bytes         bytes the data file must still grow by
  @param[in]   probe         asks the file system, under the book's mutex
  @param[in]   min_free_pct  innodb_extent_size_min_free_pct
  @return the decision and the figures it used */
  Grant open(Claim *claim, uint64_t fs_id, uint64_t bytes,
             const Fs_probe &probe, uint32_t min_free_pct);

  /** Before each chunk: may the data file grow by chunk_bytes now?
  The claim's own unwritten bytes are still free space on the file system;
  the other claims are not.
  @param[in]  claim         the statement's open claim
  @param[in]  chunk_bytes   bytes the chunk adds to the file
  @param[in]  probe         asks the file system, under the book's mutex
  @param[in]  min_free_pct  innodb_extent_size_min_free_pct
  @return the decision and the figures it used */
  Grant next_chunk(const Claim &claim, uint64_t chunk_bytes,
                   const Fs_probe &probe, uint32_t min_free_pct);

  /** A chunk grew the file by bytes: that much of the claim is now used
  space on the file system.
  @param[in,out]  claim  the statement's claim
  @param[in]      bytes  bytes the file grew by */
  void wrote(Claim *claim, uint64_t bytes);

  /** The statement ended: drop what is left of its claim.
  @param[in,out]  claim  the statement's claim (may be unopened) */
  void close(Claim *claim);

  /** Bytes claimed and not written on a file system.
  @param[in]  fs_id  the file system
  @return the sum of the open claims' left() */
  uint64_t claimed(uint64_t fs_id) const;

 private:
  /** Decide with the free space less the other claims.
  @param[in]  others        bytes claimed by other statements
  @param[in]  bytes         growth asked for
  @param[in]  probe         asks the file system
  @param[in]  min_free_pct  the reserve in percent of the file system
  @return the decision */
  static Grant decide(uint64_t others, uint64_t bytes, const Fs_probe &probe,
                      uint32_t min_free_pct);

  /** Take bytes off a file system's claimed total; the caller holds
  m_mutex.
  @param[in]  fs_id  the file system
  @param[in]  bytes  bytes no longer claimed */
  void drop(uint64_t fs_id, uint64_t bytes);

  mutable std::mutex m_mutex;
  /** File system id -> bytes claimed and not written. */
  std::map<uint64_t, uint64_t> m_claimed;
};

/** The server's book of claims.
@return the process-wide instance */
Reservations &reservations();

}  // namespace fsp_prealloc

#endif /* fsp0prealloc_reserve_h */

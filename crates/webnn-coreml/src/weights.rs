//! The weight file (`weights/weight.bin`) in MIL's blob storage format, version 2, as
//! coremltools' `MILBlob::Blob::StorageWriter` writes it: a 64-byte header (blob count,
//! version), then per blob a 64-byte metadata record (sentinel, data type, size, data offset)
//! at a 64-byte aligned offset followed by the data. A `blobFileValue` names the metadata's
//! offset.

use crate::emit::Ty;

const ALIGNMENT: usize = 64;
const SENTINEL: u32 = 0xDEAD_BEEF;
const VERSION: u32 = 2;

/// `MILBlob::Blob::BlobDataType`.
fn blob_type(ty: Ty) -> u32 {
    match ty {
        Ty::F16 => 1,
        Ty::F32 => 2,
        Ty::U8 => 3,
        Ty::I8 => 4,
        Ty::I32 => 14,
        // Booleans are always immediate values (see `Em::constant`); stored as bytes.
        Ty::Bool => 3,
    }
}

/// A weight file being written.
#[derive(Clone, Debug)]
pub struct Weights {
    bytes: Vec<u8>,
    count: u32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights::new()
    }
}

impl Weights {
    pub fn new() -> Weights {
        let mut w = Weights { bytes: vec![0; ALIGNMENT], count: 0 };
        w.write_header();
        w
    }

    fn write_header(&mut self) {
        self.bytes[0..4].copy_from_slice(&self.count.to_le_bytes());
        self.bytes[4..8].copy_from_slice(&VERSION.to_le_bytes());
    }

    /// Appends one blob and returns the offset of its metadata.
    pub fn add(&mut self, ty: Ty, data: &[u8]) -> u64 {
        let meta = self.bytes.len().next_multiple_of(ALIGNMENT);
        self.bytes.resize(meta, 0);
        let data_offset = (meta + ALIGNMENT) as u64;
        let mut record = [0u8; ALIGNMENT];
        record[0..4].copy_from_slice(&SENTINEL.to_le_bytes());
        record[4..8].copy_from_slice(&blob_type(ty).to_le_bytes());
        record[8..16].copy_from_slice(&(data.len() as u64).to_le_bytes());
        record[16..24].copy_from_slice(&data_offset.to_le_bytes());
        self.bytes.extend_from_slice(&record);
        self.bytes.extend_from_slice(data);
        self.count += 1;
        self.write_header();
        meta as u64
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_aligned_after_their_metadata() {
        let mut w = Weights::new();
        assert_eq!(w.add(Ty::F32, &[0; 12]), 64);
        assert_eq!(w.add(Ty::F16, &[1; 2]), 192);
        let b = w.into_bytes();
        assert_eq!(&b[0..8], &[2, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(u64::from_le_bytes(b[64 + 16..64 + 24].try_into().unwrap()), 128);
        assert_eq!(u64::from_le_bytes(b[192 + 16..192 + 24].try_into().unwrap()), 256);
        assert_eq!(b.len(), 258);
    }
}

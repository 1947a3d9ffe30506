//! Ed25519 keys: parsing public keys (`ed25519:<base64>` or SPKI PEM) and private keys
//! (PKCS#8 PEM), key ids, generation and PEM encoding.
//!
//! Every parse error is one sentence that says what was found and what was expected; nothing
//! here panics on bad input.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, Engine};
use ed25519_dalek::pkcs8::spki::der::pem::{self, LineEnding};
use ed25519_dalek::pkcs8::spki::der::zeroize::Zeroizing;
use ed25519_dalek::pkcs8::spki::SubjectPublicKeyInfoRef;
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Re-exported so callers need no direct dependency for key types.
pub use ed25519_dalek::{Signature, SigningKey as PrivateKey, VerifyingKey as PublicKey};

/// Why a key could not be parsed, encoded, generated or read. Each message is one sentence that
/// says what was found and what was expected.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The text after `ed25519:` is not base64.
    #[error("the text after `ed25519:` is not base64 ({0})")]
    NotBase64(base64::DecodeError),
    /// The compact form decodes to the wrong number of bytes.
    #[error("an Ed25519 public key is 32 bytes; the base64 after `ed25519:` decodes to {0}")]
    WrongLength(usize),
    /// The 32 bytes are not a point on the curve.
    #[error("the 32 bytes after `ed25519:` are not a valid Ed25519 point")]
    InvalidPoint,
    /// A small-order key, which would accept forged signatures.
    #[error(
        "the key is a weak Ed25519 key (a point of small order); it would accept forged \
         signatures and is refused"
    )]
    Weak,
    /// A private key PEM where a public key was expected.
    #[error(
        "this PEM is a private key (`{0}`) where a public key is expected; use the `.pub` file, \
         and never publish or record the private key"
    )]
    PrivateWherePublic(String),
    /// A certificate where a public key was expected.
    #[error(
        "this PEM is a certificate; give the public key itself (`-----BEGIN PUBLIC KEY-----`)"
    )]
    Certificate,
    /// A public key PEM where a private key was expected.
    #[error("this PEM is a public key where a private key is expected; use the `.key` file")]
    PublicWherePrivate,
    /// An encrypted PKCS#8 key.
    #[error(
        "encrypted private keys are not supported; decrypt it first (openssl pkcs8 -in K -out K2)"
    )]
    Encrypted,
    /// A PEM block of another type.
    #[error("unsupported PEM type `{found}`; expected {expected}")]
    UnsupportedPem {
        /// The label found.
        found: String,
        /// What was expected, in words.
        expected: &'static str,
    },
    /// A `type:` prefix other than `ed25519:`.
    #[error("unsupported key type `{0}`; expected `ed25519:<base64 of 32 bytes>` or an SPKI PEM")]
    UnsupportedType(String),
    /// Neither form of a public key.
    #[error(
        "not a public key; expected `ed25519:<base64 of 32 bytes>` or an SPKI PEM \
         (`-----BEGIN PUBLIC KEY-----`)"
    )]
    NotAPublicKey,
    /// No PEM block where a private key was expected.
    #[error(
        "not a PEM private key; expected `-----BEGIN PRIVATE KEY-----` (PKCS#8, as \
         `provscope keygen` writes)"
    )]
    NotAPrivateKey,
    /// The PEM armour or its base64 is broken.
    #[error("the PEM block is malformed ({0})")]
    MalformedPem(String),
    /// The DER inside the PEM is not the structure its label promises.
    #[error("the PEM does not hold a {structure} ({detail})")]
    WrongStructure {
        /// `SubjectPublicKeyInfo` or `PKCS#8 private key`.
        structure: &'static str,
        /// The decoder's words.
        detail: String,
    },
    /// A key of another algorithm.
    #[error(
        "wrong key type: the PEM holds a {name} {what}(algorithm {oid}); provscope needs \
         Ed25519 ({ED25519_OID})"
    )]
    WrongAlgorithm {
        /// Human name of the algorithm.
        name: &'static str,
        /// `"key "` or `"private key "`.
        what: &'static str,
        /// The algorithm OID found.
        oid: String,
    },
    /// The key bytes inside a well-formed PEM are invalid.
    #[error("the {0} is invalid ({1})")]
    InvalidKey(&'static str, String),
    /// Encoding a key as PEM failed.
    #[error("cannot encode the {0} key as PEM: {1}")]
    Encode(&'static str, String),
    /// The operating system's random number generator failed.
    #[error("the operating system gave no random bytes: {0}")]
    NoRandom(String),
    /// A key file could not be opened.
    #[error("{}: cannot open: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A key file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A key file over 64 KiB.
    #[error("{}: over 64 KiB, too large for a key file", .0.display())]
    TooLarge(PathBuf),
    /// A key file that is not UTF-8.
    #[error("{}: not UTF-8 text (expected a PEM key)", .0.display())]
    NotUtf8(PathBuf),
    /// A key file whose content is not a key.
    #[error("{}: {source}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with its content.
        source: Box<KeyError>,
    },
}

impl KeyError {
    /// Whether the message already names the file it is about (else the caller names where
    /// the key came from, such as an option).
    pub fn names_its_file(&self) -> bool {
        matches!(
            self,
            KeyError::InFile { .. }
                | KeyError::Open { .. }
                | KeyError::Read { .. }
                | KeyError::TooLarge(_)
                | KeyError::NotUtf8(_)
        )
    }

    fn in_file(self, path: &Path) -> KeyError {
        KeyError::InFile {
            path: path.to_path_buf(),
            source: Box::new(self),
        }
    }
}

/// The prefix of the compact public key form.
pub const ED25519_PREFIX: &str = "ed25519:";

/// The OID of Ed25519 in SPKI and PKCS#8 (RFC 8410).
const ED25519_OID: &str = "1.3.101.112";

const INDIFFERENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
/// Standard base64 alphabet, padding optional.
pub(crate) const B64_STD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, INDIFFERENT);
/// URL-safe base64 alphabet, padding optional.
pub(crate) const B64_URL: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, INDIFFERENT);

/// Decodes standard or URL-safe base64 (padding optional), as DSSE asks verifiers to accept.
pub(crate) fn b64_decode(s: &str) -> Result<Vec<u8>, base64::DecodeError> {
    match B64_STD.decode(s) {
        Ok(v) => Ok(v),
        Err(std_err) => B64_URL.decode(s).map_err(|_| std_err),
    }
}

/// Standard base64 with padding (what provscope writes).
pub(crate) fn b64_encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The key id: lowercase hex SHA-256 of the raw 32-byte public key. A hint for humans and
/// other tools; provscope never bases a security decision on it.
pub fn keyid(key: &VerifyingKey) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// The compact form `ed25519:<standard base64 of the 32 bytes>` used in session headers.
pub fn compact(key: &VerifyingKey) -> String {
    format!("{ED25519_PREFIX}{}", b64_encode(key.as_bytes()))
}

/// The SPKI PEM (`-----BEGIN PUBLIC KEY-----`) of a public key.
pub fn public_pem(key: &VerifyingKey) -> Result<String, KeyError> {
    key.to_public_key_pem(LineEnding::LF)
        .map_err(|e| KeyError::Encode("public", e.to_string()))
}

/// The PKCS#8 v1 PEM (`-----BEGIN PRIVATE KEY-----`, RFC 8410: the seed only, as OpenSSL and
/// Python `cryptography` write it) of a private key, in a buffer wiped on drop.
pub fn private_pem(key: &SigningKey) -> Result<Zeroizing<String>, KeyError> {
    let kp = ed25519_dalek::pkcs8::KeypairBytes {
        secret_key: key.to_bytes(),
        public_key: None,
    };
    kp.to_pkcs8_pem(LineEnding::LF)
        .map_err(|e| KeyError::Encode("private", e.to_string()))
}

/// A new private key from the operating system's random number generator.
pub fn generate() -> Result<SigningKey, KeyError> {
    let mut seed = Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut seed[..]).map_err(|e| KeyError::NoRandom(e.to_string()))?;
    Ok(SigningKey::from_bytes(&seed))
}

/// Human name of a few algorithm OIDs seen in the wild, for error messages.
fn oid_name(oid: &str) -> &'static str {
    match oid {
        "1.2.840.10045.2.1" => "EC (ECDSA)",
        "1.2.840.113549.1.1.1" => "RSA",
        "1.2.840.113549.1.1.10" => "RSA-PSS",
        "1.3.101.110" => "X25519",
        "1.3.101.111" => "X448",
        "1.3.101.113" => "Ed448",
        "1.2.840.10040.4.1" => "DSA",
        _ => "unknown algorithm",
    }
}

/// The label of the first PEM block (`PUBLIC KEY` in `-----BEGIN PUBLIC KEY-----`).
fn pem_label(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("-----BEGIN ")?;
    let end = rest.find("-----")?;
    Some(&rest[..end])
}

fn checked(key: VerifyingKey) -> Result<VerifyingKey, KeyError> {
    if key.is_weak() {
        Err(KeyError::Weak)
    } else {
        Ok(key)
    }
}

/// Parses a public key: `ed25519:` followed by the base64 (standard or URL-safe, padding
/// optional) of the 32-byte key, or an SPKI PEM (`-----BEGIN PUBLIC KEY-----`).
/// Weak (small-order) keys are refused.
pub fn parse_public(text: &str) -> Result<VerifyingKey, KeyError> {
    let t = text.trim();
    if let Some(b64) = t.strip_prefix(ED25519_PREFIX) {
        let bytes = b64_decode(b64.trim()).map_err(KeyError::NotBase64)?;
        let arr: [u8; 32] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| KeyError::WrongLength(bytes.len()))?;
        let key = VerifyingKey::from_bytes(&arr).map_err(|_| KeyError::InvalidPoint)?;
        return checked(key);
    }
    if let Some(label) = pem_label(t) {
        return match label {
            "PUBLIC KEY" => parse_spki_pem(t),
            l if l.contains("PRIVATE KEY") => Err(KeyError::PrivateWherePublic(l.to_owned())),
            "CERTIFICATE" => Err(KeyError::Certificate),
            l => Err(KeyError::UnsupportedPem {
                found: l.to_owned(),
                expected: "`-----BEGIN PUBLIC KEY-----` (SPKI)",
            }),
        };
    }
    if let Some((kind, _)) = t.split_once(':') {
        if !kind.is_empty()
            && kind.len() <= 16
            && kind.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(KeyError::UnsupportedType(kind.to_owned()));
        }
    }
    Err(KeyError::NotAPublicKey)
}

fn parse_spki_pem(t: &str) -> Result<VerifyingKey, KeyError> {
    let (_, der) =
        pem::decode_vec(t.as_bytes()).map_err(|e| KeyError::MalformedPem(e.to_string()))?;
    let spki = SubjectPublicKeyInfoRef::try_from(der.as_slice()).map_err(|e| {
        KeyError::WrongStructure {
            structure: "SubjectPublicKeyInfo",
            detail: e.to_string(),
        }
    })?;
    let oid = spki.algorithm.oid.to_string();
    if oid != ED25519_OID {
        return Err(KeyError::WrongAlgorithm {
            name: oid_name(&oid),
            what: "key ",
            oid,
        });
    }
    let key = VerifyingKey::try_from(spki)
        .map_err(|e| KeyError::InvalidKey("PEM's Ed25519 key", e.to_string()))?;
    checked(key)
}

/// Parses a PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`), as `provscope keygen` writes.
pub fn parse_private(text: &str) -> Result<SigningKey, KeyError> {
    let t = text.trim();
    let Some(label) = pem_label(t) else {
        return Err(KeyError::NotAPrivateKey);
    };
    match label {
        "PRIVATE KEY" => {}
        "PUBLIC KEY" => return Err(KeyError::PublicWherePrivate),
        "ENCRYPTED PRIVATE KEY" => return Err(KeyError::Encrypted),
        l => {
            return Err(KeyError::UnsupportedPem {
                found: l.to_owned(),
                expected: "`-----BEGIN PRIVATE KEY-----` (PKCS#8 Ed25519, as `provscope keygen` \
                           writes)",
            })
        }
    }
    let (_, der) =
        pem::decode_vec(t.as_bytes()).map_err(|e| KeyError::MalformedPem(e.to_string()))?;
    let der = Zeroizing::new(der);
    match ed25519_dalek::pkcs8::PrivateKeyInfo::try_from(der.as_slice()) {
        Ok(info) => {
            let oid = info.algorithm.oid.to_string();
            if oid != ED25519_OID {
                return Err(KeyError::WrongAlgorithm {
                    name: oid_name(&oid),
                    what: "private key ",
                    oid,
                });
            }
        }
        Err(e) => {
            return Err(KeyError::WrongStructure {
                structure: "PKCS#8 private key",
                detail: e.to_string(),
            })
        }
    }
    SigningKey::from_pkcs8_der(&der)
        .map_err(|e| KeyError::InvalidKey("Ed25519 private key", e.to_string()))
}

/// Reads a file of at most 64 KiB (keys are small), naming the file in errors.
pub fn read_small_file(path: &Path) -> Result<String, KeyError> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|source| KeyError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut buf = Vec::new();
    f.take(64 * 1024 + 1)
        .read_to_end(&mut buf)
        .map_err(|source| KeyError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if buf.len() > 64 * 1024 {
        return Err(KeyError::TooLarge(path.to_path_buf()));
    }
    String::from_utf8(buf).map_err(|_| KeyError::NotUtf8(path.to_path_buf()))
}

/// A public key from the command line: `ed25519:<base64>` as is, otherwise a path to a PEM file.
/// An error in the key file's content names the file; one in an inline key does not (the
/// caller names the option).
pub fn load_public(arg: &str) -> Result<VerifyingKey, KeyError> {
    if arg.trim_start().starts_with(ED25519_PREFIX) {
        return parse_public(arg);
    }
    let path = Path::new(arg);
    let text = read_small_file(path)?;
    parse_public(&text).map_err(|e| e.in_file(path))
}

/// A private key from a PKCS#8 PEM file.
pub fn load_private(path: &Path) -> Result<SigningKey, KeyError> {
    let text = Zeroizing::new(read_small_file(path)?);
    parse_private(&text).map_err(|e| e.in_file(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8032 section 7.1, TEST 1.
    const SK1: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    const PK1: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

    fn key1() -> SigningKey {
        let mut b = [0u8; 32];
        hex::decode_to_slice(SK1, &mut b).unwrap();
        SigningKey::from_bytes(&b)
    }

    #[test]
    fn compact_and_pem_round_trip() {
        let sk = key1();
        let vk = sk.verifying_key();
        assert_eq!(hex::encode(vk.as_bytes()), PK1);
        assert_eq!(parse_public(&compact(&vk)).unwrap(), vk);
        assert_eq!(parse_public(&public_pem(&vk).unwrap()).unwrap(), vk);
        let pem = private_pem(&sk).unwrap();
        assert_eq!(parse_private(&pem).unwrap().to_bytes(), sk.to_bytes());
        // URL-safe and unpadded forms are accepted too.
        let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(vk.as_bytes());
        assert_eq!(parse_public(&format!("ed25519:{url}")).unwrap(), vk);
        assert_eq!(keyid(&vk).len(), 64);
    }

    #[test]
    fn clear_errors() {
        let sk = key1();
        let e = parse_public(&private_pem(&sk).unwrap()).unwrap_err();
        assert!(matches!(e, KeyError::PrivateWherePublic(_)), "{e}");
        assert!(e.to_string().contains("private key"), "{e}");
        let e = parse_private(&public_pem(&sk.verifying_key()).unwrap()).unwrap_err();
        assert!(matches!(e, KeyError::PublicWherePrivate), "{e}");
        assert!(e.to_string().contains("public key"), "{e}");
        let e = parse_public("ed25519:AAAA").unwrap_err();
        assert!(matches!(e, KeyError::WrongLength(3)), "{e}");
        assert!(e.to_string().contains("32 bytes"), "{e}");
        let e = parse_public("ed25519:!!!").unwrap_err();
        assert!(matches!(e, KeyError::NotBase64(_)), "{e}");
        assert!(e.to_string().contains("not base64"), "{e}");
        let e = parse_public("ecdsa:AAAA").unwrap_err().to_string();
        assert!(e.contains("unsupported key type `ecdsa`"), "{e}");
        let e = parse_public("hello").unwrap_err().to_string();
        assert!(e.contains("not a public key"), "{e}");
        // A P-256 SPKI (generated with openssl): wrong key type, named.
        let p256 = "-----BEGIN PUBLIC KEY-----\n\
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEwKRMwphX0hD2vTVvj3WqW9SwE59E\n\
UgUoIl4slTZkubCxqoPVT/AHKZho1oWrANmsaWt8OKAnyKhOmU/orbuudg==\n\
-----END PUBLIC KEY-----\n";
        let e = parse_public(p256).unwrap_err();
        assert!(
            matches!(&e, KeyError::WrongAlgorithm { oid, .. } if oid == "1.2.840.10045.2.1"),
            "{e}"
        );
        let e = e.to_string();
        assert!(e.contains("wrong key type") && e.contains("EC"), "{e}");
        // The identity point is a weak key.
        let mut id = [0u8; 32];
        id[0] = 1;
        let e = parse_public(&format!("ed25519:{}", b64_encode(&id))).unwrap_err();
        assert!(matches!(e, KeyError::Weak), "{e}");
    }

    #[test]
    fn file_errors_name_the_file_and_inline_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("k.pub");
        std::fs::write(&f, "hello").unwrap();
        let e = load_public(f.to_str().unwrap()).unwrap_err();
        assert!(e.names_its_file(), "{e}");
        assert!(e
            .to_string()
            .starts_with(&format!("{}: not a public key", f.display())));
        let e = load_public("ed25519:AAAA").unwrap_err();
        assert!(!e.names_its_file(), "{e}");
        let e = load_private(&dir.path().join("missing.key")).unwrap_err();
        assert!(matches!(e, KeyError::Open { .. }), "{e}");
    }

    /// RFC 8032 section 7.1, TEST 1 to 3: (secret key, public key, message, signature).
    const RFC8032: [(&str, &str, &str, &str); 3] = [
        (
            SK1,
            PK1,
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155\
             5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da\
             085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        ),
        (
            "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac\
             18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
        ),
    ];

    #[test]
    fn rfc8032_section_7_1_tests_1_to_3() {
        use ed25519_dalek::Signer;
        for (i, (sk, pk, msg, sig)) in RFC8032.iter().enumerate() {
            let mut seed = [0u8; 32];
            hex::decode_to_slice(sk, &mut seed).unwrap();
            let key = SigningKey::from_bytes(&seed);
            let vk = key.verifying_key();
            assert_eq!(hex::encode(vk.as_bytes()), *pk, "TEST {}", i + 1);
            let msg = hex::decode(msg).unwrap();
            let got = key.sign(&msg);
            assert_eq!(hex::encode(got.to_bytes()), *sig, "TEST {}", i + 1);
            // The published signature verifies through provscope's own key parsing.
            let parsed = parse_public(&format!("ed25519:{}", b64_encode(vk.as_bytes()))).unwrap();
            assert!(parsed.verify_strict(&msg, &got).is_ok());
            // One flipped bit anywhere in the signature, or in the message, fails.
            for bit in [0usize, 7, 100, 255, 256, 300, 511] {
                let mut b = got.to_bytes();
                b[bit / 8] ^= 1 << (bit % 8);
                let bad = Signature::from_bytes(&b);
                assert!(
                    parsed.verify_strict(&msg, &bad).is_err(),
                    "TEST {} bit {bit}",
                    i + 1
                );
            }
            let mut m2 = msg.clone();
            m2.push(0);
            assert!(parsed.verify_strict(&m2, &got).is_err());
        }
    }

    #[test]
    fn generated_keys_differ() {
        let a = generate().unwrap();
        let b = generate().unwrap();
        assert_ne!(a.to_bytes(), b.to_bytes());
    }
}

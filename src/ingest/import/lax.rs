//! Lenient typed views of a JSON document, for importers that read one large document.
//!
//! Reading a response into `serde_json::Value` allocated every key and string of it, most of
//! which an importer never looks at. These types read only the fields an importer names,
//! borrowing strings from the document where they have no escapes, and they read the way
//! `Value` lookups did: a field of another JSON type than expected is absent (never an error),
//! a non-object where an object is expected has no fields, the last of duplicate keys wins, and
//! `&RawValue` keeps the rest as written for the rare paths that need a `Value`.

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// The visitor methods for the kinds of JSON value a lax type does not take: each skips the
/// value (an array or object whole) and gives `$none`, as a `Value` lookup of the wrong type did.
macro_rules! otherwise {
    ($de:lifetime, $none:expr; $($kind:ident)*) => { $( otherwise!(@one $de, $none; $kind); )* };
    (@one $de:lifetime, $none:expr; bool) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> { Ok($none) }
    };
    (@one $de:lifetime, $none:expr; i64) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> { Ok($none) }
    };
    (@one $de:lifetime, $none:expr; u64) => {
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> { Ok($none) }
    };
    (@one $de:lifetime, $none:expr; f64) => {
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> { Ok($none) }
    };
    (@one $de:lifetime, $none:expr; str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> { Ok($none) }
    };
    (@one $de:lifetime, $none:expr; unit) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> { Ok($none) }
    };
    (@one $de:lifetime, $none:expr; none) => {
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> { Ok($none) }
    };
    (@one $de:lifetime, $none:expr; seq) => {
        fn visit_seq<A: SeqAccess<$de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($none)
        }
    };
    (@one $de:lifetime, $none:expr; map) => {
        fn visit_map<A: MapAccess<$de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($none)
        }
    };
}

/// A string field: `None` when absent or not a string.
#[derive(Clone, Debug, Default)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);

impl<'a> Str<'a> {
    /// The string, if the field is one.
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// A non-negative integer field (`Value::as_u64`): `None` when absent, negative, a float or
/// not a number.
#[derive(Clone, Copy, Debug, Default)]
pub struct U64(pub Option<u64>);

/// A number field (`Value::as_f64`): `None` when absent or not a number.
#[derive(Clone, Copy, Debug, Default)]
pub struct F64(pub Option<f64>);

/// A boolean field: `None` when absent or not a boolean.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bool(pub Option<bool>);

/// Any value, kept as written (`null` included); `None` when absent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Raw<'a>(pub Option<&'a RawValue>);

impl<'a> Raw<'a> {
    /// The raw value unless it is absent or `null`.
    pub fn non_null(&self) -> Option<&'a RawValue> {
        self.0.filter(|r| r.get() != "null")
    }

    /// The value as a `serde_json::Value` (`None` when absent): for the rare paths that keep
    /// the old `Value` handling.
    pub fn value(&self) -> Option<Value> {
        self.0.and_then(|r| serde_json::from_str(r.get()).ok())
    }
}

/// An object field whose presence counts (`Value::get(..).is_some()`): `Some` for any value,
/// `null` included (a non-object has no fields).
#[derive(Clone, Debug)]
pub struct Opt<T>(pub Option<T>);

impl<T> Default for Opt<T> {
    fn default() -> Self {
        Opt(None)
    }
}

impl<'de, T: Fields<'de>> Deserialize<'de> for Opt<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object(d).map(|t| Opt(Some(t)))
    }
}

/// An array field: `None` when absent or not an array. Elements keep their index.
#[derive(Clone, Debug)]
pub struct List<T>(pub Option<Vec<T>>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<T> List<T> {
    /// The elements (empty when the field is absent or not an array), as `util::arr` gives them.
    pub fn items(&self) -> &[T] {
        self.0.as_deref().unwrap_or(&[])
    }
}

/// The fields an object type reads: called once per key, in document order.
pub trait Fields<'de>: Default {
    /// Reads the value of `key` into its field, or skips it.
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// Declares a struct of lax fields read from a JSON object (`field: Type = "key"`).
macro_rules! lax_object {
    ($(#[$m:meta])* $vis:vis struct $name:ident<$lt:lifetime> {
        $($(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty = $key:literal $(| $alt:literal)*),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Default)]
        $vis struct $name<$lt> {
            $($(#[$fm])* $fvis $field: $ty,)*
            _doc: std::marker::PhantomData<&$lt ()>,
        }
        impl<'de: $lt, $lt> $crate::ingest::import::lax::Fields<'de> for $name<$lt> {
            fn field<A: serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<(), A::Error> {
                match key {
                    $($key $(| $alt)* => self.$field = map.next_value()?,)*
                    _ => {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(())
            }
        }
        impl<'de: $lt, $lt> serde::Deserialize<'de> for $name<$lt> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::ingest::import::lax::object(d)
            }
        }
    };
}
pub(crate) use lax_object;

/// Reads an object type: its fields from a JSON object, none from any other value.
pub fn object<'de, T: Fields<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(ObjectVisitor(PhantomData))
}

/// A document read as `T`, with the bits of the top-level keys detection reads that it holds
/// (`sniff::key_bit`): what confirms a format detected from the document's first keys
/// (`import::FirstKeys`). They are `None` when the document is no JSON object (`T` then has no
/// fields, as [`object`] reads it).
pub struct Document<T> {
    /// The document's fields.
    pub fields: T,
    /// The bits of its top-level keys that detection reads.
    pub detection_keys: Option<u64>,
}

impl<'de, T: Fields<'de>> Deserialize<'de> for Document<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DocumentVisitor(PhantomData))
    }
}

struct DocumentVisitor<T>(PhantomData<T>);

impl<'de, T: Fields<'de>> Visitor<'de> for DocumentVisitor<T> {
    type Value = Document<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = T::default();
        let mut keys = 0;
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            keys |= super::sniff::key_bit(&k);
            fields.field(&k, &mut map)?;
        }
        Ok(Document {
            fields,
            detection_keys: Some(keys),
        })
    }
    otherwise!('de, Document { fields: T::default(), detection_keys: None }; bool i64 u64 f64 str unit none seq);
}

/// An object key, borrowed when it has no escapes.
pub struct Key<'de>(pub Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_str(StrVisitor)? {
            Some(s) => Ok(Key(s)),
            None => Err(de::Error::custom("a key is not a string")),
        }
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Fields<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut out = T::default();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            out.field(&k, &mut map)?;
        }
        Ok(out)
    }
    otherwise!('de, T::default(); bool i64 u64 f64 str unit none seq);
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }
    otherwise!('de, None; bool i64 u64 f64 unit none seq map);
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrVisitor).map(Str)
    }
}

struct NumVisitor;

/// A JSON number as serde_json reads it: non-negative integers, negative integers, floats.
#[derive(Default)]
enum Num {
    #[default]
    Not,
    Pos(u64),
    Neg(i64),
    Float(f64),
}

impl<'de> Visitor<'de> for NumVisitor {
    type Value = Num;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
        Ok(Num::Pos(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
        Ok(if v >= 0 {
            Num::Pos(v as u64)
        } else {
            Num::Neg(v)
        })
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
        Ok(Num::Float(v))
    }
    otherwise!('de, Num::Not; bool str unit none seq map);
}

impl<'de> Deserialize<'de> for U64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(U64(match d.deserialize_any(NumVisitor)? {
            Num::Pos(v) => Some(v),
            _ => None,
        }))
    }
}

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(F64(match d.deserialize_any(NumVisitor)? {
            Num::Pos(v) => Some(v as f64),
            Num::Neg(v) => Some(v as f64),
            Num::Float(v) => Some(v),
            Num::Not => None,
        }))
    }
}

struct BoolVisitor;

impl<'de> Visitor<'de> for BoolVisitor {
    type Value = Option<bool>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<bool>, E> {
        Ok(Some(v))
    }
    otherwise!('de, None; i64 u64 f64 str unit none seq map);
}

impl<'de> Deserialize<'de> for Bool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BoolVisitor).map(Bool)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(|r| Raw(Some(r)))
    }
}

struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = Option<Vec<T>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(Some(v))
    }
    otherwise!('de, None; bool i64 u64 f64 str unit none map);
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ListVisitor(PhantomData)).map(List)
    }
}

/// A field that is a string or an array (a message's `content`); `None` for any other value
/// and when absent.
#[derive(Clone, Debug)]
pub enum TextOrList<'a, T> {
    /// Absent, or neither a string nor an array.
    None,
    /// A string.
    Text(Cow<'a, str>),
    /// An array's elements.
    List(Vec<T>),
}

// Not derived: a derived `Default` would require `T: Default`.
#[allow(clippy::derivable_impls)]
impl<T> Default for TextOrList<'_, T> {
    fn default() -> Self {
        TextOrList::None
    }
}

struct TextOrListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for TextOrListVisitor<T> {
    type Value = TextOrList<'de, T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(TextOrList::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(TextOrList::Text(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(TextOrList::Text(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        ListVisitor::<T>(PhantomData)
            .visit_seq(seq)
            .map(|v| TextOrList::List(v.unwrap_or_default()))
    }
    otherwise!('de, TextOrList::None; bool i64 u64 f64 unit none map);
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for TextOrList<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextOrListVisitor(PhantomData))
    }
}

/// An object field: `None` when absent or not an object (`Value::get(..).filter(Value::is_object)`).
#[derive(Clone, Debug)]
pub struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

struct ObjVisitor<T>(PhantomData<T>);

impl<'de, T: Fields<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        ObjectVisitor::<T>(PhantomData).visit_map(map).map(Some)
    }
    otherwise!('de, None; bool i64 u64 f64 str unit none seq);
}

impl<'de, T: Fields<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjVisitor(PhantomData)).map(Obj)
    }
}

/// A field of any type whose presence counts (`Value::get(..).is_some()`): `Some` whatever
/// its value, read as `T` reads it.
#[derive(Clone, Debug)]
pub struct Present<T>(pub Option<T>);

impl<T> Default for Present<T> {
    fn default() -> Self {
        Present(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Present<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|t| Present(Some(t)))
    }
}

/// A body a logging proxy recorded (a request's or a response's), read in the same pass as its
/// record: an object, a JSON text (a proxy that logs bodies as strings), an array, or another
/// value.
#[derive(Debug, Default)]
pub enum Body<'a, T> {
    /// No such field.
    #[default]
    Absent,
    /// An object: its fields as `T` reads them, and the value of its key `body`, which `T`
    /// never sees (a proxy's `{"body": ...}` or `{method, url, headers, body}`).
    Object {
        /// The object's fields.
        fields: T,
        /// The value of its key `body` (the last, when the key repeats).
        body: Option<&'a RawValue>,
    },
    /// A string: the JSON text of the body.
    Text(Cow<'a, str>),
    /// An array's elements.
    List(Vec<Value>),
    /// Any other value (`null` included).
    Other,
}

impl<'a, T> Body<'a, T> {
    /// Whether the field is there, whatever its value.
    pub fn is_present(&self) -> bool {
        !matches!(self, Body::Absent)
    }
}

struct BodyVisitor<T>(PhantomData<T>);

impl<'de, T: Fields<'de>> Visitor<'de> for BodyVisitor<T> {
    type Value = Body<'de, T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut fields, mut body) = (T::default(), None);
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            if k == "body" {
                body = Some(map.next_value::<&'de RawValue>()?);
            } else {
                fields.field(&k, &mut map)?;
            }
        }
        Ok(Body::Object { fields, body })
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Body::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Body::Text(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Body::Text(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Vec::<Value>::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Body::List)
    }
    otherwise!('de, Body::Other; bool i64 u64 f64 unit none);
}

impl<'de: 'a, 'a, T: Fields<'de>> Deserialize<'de> for Body<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BodyVisitor(PhantomData))
    }
}

/// Any JSON value read in one pass, an object's fields kept as written: for blocks kept as
/// received, whose few named fields are read from it without parsing the rest twice.
#[derive(Clone, Debug)]
pub enum Any<'a> {
    /// An object's fields in document order, duplicates included.
    Object(Vec<(Cow<'a, str>, &'a RawValue)>),
    /// An array's elements.
    Array(Vec<Any<'a>>),
    /// Any other value.
    Other(Value),
}

impl<'a> Any<'a> {
    /// The value of an object's field (the last one, when the key repeats).
    pub fn get(&self, key: &str) -> Option<&'a RawValue> {
        match self {
            Any::Object(fields) => fields.iter().rev().find(|(k, _)| k == key).map(|f| f.1),
            _ => None,
        }
    }

    /// An object's string field (`util::s`): `None` when absent or not a string.
    pub fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        let raw = self.get(key)?;
        serde_json::from_str::<Str<'a>>(raw.get()).ok()?.0
    }

    /// The value as a `serde_json::Value` would hold it (duplicate keys: the last value, at the
    /// first key's place).
    pub fn to_value(&self) -> Value {
        match self {
            Any::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| {
                        let v = serde_json::from_str(v.get()).unwrap_or(Value::Null);
                        (k.clone().into_owned(), v)
                    })
                    .collect(),
            ),
            Any::Array(items) => Value::Array(items.iter().map(Any::to_value).collect()),
            Any::Other(v) => v.clone(),
        }
    }
}

struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Any<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // Room for a block's usual fields at once (a first push reserves four, then eight).
        let mut fields = Vec::with_capacity(8);
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            fields.push((k, map.next_value::<&'de RawValue>()?));
        }
        Ok(Any::Object(fields))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(Any::Array(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::String(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::String(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Any::Other(Value::Null))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Any<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyVisitor)
    }
}

/// Tool arguments as written: a JSON string holding the arguments (OpenAI), or the arguments
/// as JSON, as [`super::util::raw_args`] reads them from a `Value`.
pub fn raw_args(raw: &RawValue) -> Result<Box<RawValue>, String> {
    if raw.get().starts_with('"') {
        let Str(Some(text)) = serde_json::from_str::<Str>(raw.get()).unwrap_or_default() else {
            return Err("the arguments cannot be re-serialized".into());
        };
        return serde_json::from_str::<Box<RawValue>>(&text)
            .map_err(|e| format!("the arguments string is not JSON ({e})"));
    }
    raw_value(raw).ok_or_else(|| "the arguments cannot be re-serialized".into())
}

/// A value as [`super::util::raw`] writes it from a `Value` (compact, numbers as `Value` reads
/// them).
pub fn raw_value(raw: &RawValue) -> Option<Box<RawValue>> {
    serde_json::from_str::<Value>(raw.get())
        .ok()
        .and_then(|v| super::util::raw(&v))
}

/// A text output as [`super::util::text_of`] gives it: a string as it is, other JSON as its
/// compact text.
pub fn text_of(raw: &RawValue) -> String {
    if raw.get().starts_with('"') {
        if let Str(Some(t)) = serde_json::from_str::<Str>(raw.get()).unwrap_or_default() {
            return t.into_owned();
        }
    }
    serde_json::from_str::<Value>(raw.get())
        .map_or_else(|_| raw.get().to_owned(), |v| v.to_string())
}

/// What [`raw_without`] read of an object.
pub struct Without<'de, T> {
    /// The object without the key, written as `serde_json` writes the `Value` with that key
    /// removed (`Map::remove`, which with `preserve_order` moves the last key into its place);
    /// not an object: the value as it is.
    pub raw: Option<Box<RawValue>>,
    /// The removed key's value (the last one, when the key repeats), read as a `T`.
    pub removed: Option<T>,
    /// The rest of the object, as a `Value` of it holds it (each key once, with its last value,
    /// in the order of the map), raw (`None`: not an object).
    pub rest: Option<Vec<(Cow<'de, str>, &'de RawValue)>>,
}

impl<'de, T> Without<'de, T> {
    /// The string value of `key` in the rest of the object (`Value::as_str` of it).
    pub fn rest_str(&self, key: &str) -> Option<Cow<'de, str>> {
        let (_, v) = self.rest.as_ref()?.iter().find(|(k, _)| k == key)?;
        serde_json::from_str::<Str<'de>>(v.get()).ok()?.0
    }
}

/// A raw object without one of its keys, read once: the removed value is read as a `T`
/// (`IgnoredAny` to skip it), never into a `Value`, and the other values are copied as written
/// when `serde_json` would write them the same (a string without escapes, `true`, `false`,
/// `null`, a short non-negative integer), else written back from a `Value` of them.
pub fn raw_without<'de, T: Deserialize<'de>>(
    raw: Option<&'de RawValue>,
    drop: &str,
) -> Without<'de, T> {
    let none = Without {
        raw: None,
        removed: None,
        rest: None,
    };
    let Some(raw) = raw else {
        return Without {
            raw: serde_json::value::to_raw_value(&Value::Null).ok(),
            ..none
        };
    };
    if !raw.get().starts_with('{') {
        let v = serde_json::from_str::<Value>(raw.get()).ok();
        return Without {
            raw: v.and_then(|v| serde_json::value::to_raw_value(&v).ok()),
            ..none
        };
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let Ok((mut members, removed)) = de.deserialize_map(MapWithout::<T> {
        drop,
        _v: PhantomData,
    }) else {
        return none;
    };
    // `Map::remove` with `preserve_order` is `IndexMap::swap_remove`.
    if let Some(at) = members.iter().position(|(k, _)| k == drop) {
        members.swap_remove(at);
    }
    let mut out = Vec::with_capacity(raw.get().len());
    out.push(b'{');
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if serde_json::to_writer(&mut out, &**k).is_err() {
            return none;
        }
        out.push(b':');
        let Some(v) = v else { return none };
        let text = v.get();
        if written_as_is(text) {
            out.extend_from_slice(text.as_bytes());
        } else {
            let Ok(value) = serde_json::from_str::<Value>(text) else {
                return none;
            };
            if serde_json::to_writer(&mut out, &value).is_err() {
                return none;
            }
        }
    }
    out.push(b'}');
    let rest = members
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    Without {
        raw: String::from_utf8(out)
            .ok()
            .and_then(|json| RawValue::from_string(json).ok()),
        removed,
        rest: Some(rest),
    }
}

/// True when `serde_json` writes the JSON value `text` back as it is from a `Value` of it.
fn written_as_is(text: &str) -> bool {
    match text.as_bytes() {
        // A valid JSON string holds no raw control character: without an escape it is
        // written as read.
        [b'"', ..] => !text.contains('\\'),
        // An integer a `u64` holds (no sign, exponent or fraction), in its only form.
        digits @ [b'0'..=b'9', ..] => digits.len() <= 18 && digits.iter().all(u8::is_ascii_digit),
        _ => matches!(text, "true" | "false" | "null"),
    }
}

/// The members of an object, each key once at its first place with its last value, as a
/// `serde_json::Map` (with `preserve_order`) inserts them; the dropped key's value is `None`.
type Members<'de> = Vec<(Cow<'de, str>, Option<&'de RawValue>)>;

struct MapWithout<'k, T> {
    drop: &'k str,
    _v: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for MapWithout<'_, T> {
    type Value = (Members<'de>, Option<T>);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out: Members<'de> = Vec::new();
        // Where each key is, once an object has too many keys to look for one by one.
        let mut at: Option<rustc_hash::FxHashMap<Cow<'de, str>, usize>> = None;
        let mut dropped = None;
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let v = if k == self.drop {
                dropped = Some(map.next_value::<T>()?);
                None
            } else {
                Some(map.next_value::<&'de RawValue>()?)
            };
            if at.is_none() && out.len() >= 16 {
                at = Some(
                    out.iter()
                        .enumerate()
                        .map(|(i, (x, _))| (x.clone(), i))
                        .collect(),
                );
            }
            let seen = match &mut at {
                Some(index) => match index.get(&k) {
                    Some(&i) => Some(i),
                    None => {
                        index.insert(k.clone(), out.len());
                        None
                    }
                },
                None => out.iter().position(|(x, _)| *x == k),
            };
            match seen {
                Some(i) => out[i].1 = v,
                None => out.push((k, v)),
            }
        }
        Ok((out, dropped))
    }
}

/// Reads `text` as `serde_json::from_str` does, faster for the lax types: the values they skip
/// (in a Gemini response, mostly `renderedContent`, HTML with an escape every few bytes) are
/// checked a word at a time between escapes, where serde_json goes through each escape in
/// several calls. A value the skim does not read itself (an escaped string, a number other than
/// a plain `u64`, a raw value, any type but a lax one) is read by serde_json from its exact text,
/// so each visitor sees what serde_json gives it. Any text the skim is unsure of (an error, a
/// nesting deeper than [`SKIM_DEPTH`]) is read again by serde_json, whose answer, error
/// included, is the answer.
pub fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> serde_json::Result<T> {
    skim(text).map_or_else(|| serde_json::from_str(text), Ok)
}

/// The fast reading of [`from_str`]: `None` when serde_json must read the text.
fn skim<'de, T: Deserialize<'de>>(text: &'de str) -> Option<T> {
    let mut s = Skim {
        text,
        at: 0,
        depth: 0,
    };
    let v = T::deserialize(&mut s).ok()?;
    s.ws();
    (s.at == text.len()).then_some(v)
}

/// How deeply the skim reads nested arrays and objects; deeper text goes to serde_json (whose
/// limit is 128), so a value the skim hands to serde_json is never cut by that limit.
const SKIM_DEPTH: u32 = 64;

/// Why the skim gave up (its reason is not kept: serde_json reads the text again).
#[derive(Debug)]
struct Unsure;

impl fmt::Display for Unsure {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("left to serde_json")
    }
}

impl std::error::Error for Unsure {}

impl de::Error for Unsure {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Unsure
    }
}

impl From<serde_json::Error> for Unsure {
    fn from(_: serde_json::Error) -> Self {
        Unsure
    }
}

/// The skim's place in the text.
struct Skim<'de> {
    text: &'de str,
    at: usize,
    /// Arrays and objects open around `at`.
    depth: u32,
}

/// The index of the quote closing the string whose text starts at `i` (after its opening
/// quote), and whether the string holds an escape; `None` where serde_json would not read it (a
/// control character, an escape JSON has not, no closing quote).
fn string_end(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let mut escaped = false;
    loop {
        // A word at a time to the next quote, backslash or control character (the test of
        // serde_json's `skip_to_escape`: the lowest flagged byte is exact).
        while let Some(w) = b.get(i..i + 8) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            let ctrl = w.wrapping_sub(ONES * 0x20) & !w;
            let q = w ^ (ONES * u64::from(b'"'));
            let q = q.wrapping_sub(ONES) & !q;
            let bs = w ^ (ONES * u64::from(b'\\'));
            let bs = bs.wrapping_sub(ONES) & !bs;
            let m = (ctrl | q | bs) & HIGH;
            if m != 0 {
                i += m.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        match *b.get(i)? {
            b'"' => return Some((i, escaped)),
            b'\\' => {
                escaped = true;
                match *b.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' if b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => i += 6,
                    _ => return None,
                }
            }
            0..=0x1f => return None,
            _ => i += 1,
        }
    }
}

impl<'de> Skim<'de> {
    /// The next byte after white space.
    fn peek(&mut self) -> Result<u8, Unsure> {
        let b = self.text.as_bytes();
        while let Some(&c) = b.get(self.at) {
            if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                return Ok(c);
            }
            self.at += 1;
        }
        Err(Unsure)
    }

    /// Skips white space.
    fn ws(&mut self) {
        let _ = self.peek();
    }

    /// Steps over `c`, the next byte after white space.
    fn eat(&mut self, c: u8) -> Result<(), Unsure> {
        if self.peek()? != c {
            return Err(Unsure);
        }
        self.at += 1;
        Ok(())
    }

    /// Steps over the string whose opening quote is at `at`; true when it holds an escape.
    fn string(&mut self) -> Result<bool, Unsure> {
        let (end, escaped) = string_end(self.text.as_bytes(), self.at + 1).ok_or(Unsure)?;
        self.at = end + 1;
        Ok(escaped)
    }

    /// Steps over `word` (`true`, `false`, `null`).
    fn literal(&mut self, word: &str) -> Result<(), Unsure> {
        if !self.text.as_bytes()[self.at..].starts_with(word.as_bytes()) {
            return Err(Unsure);
        }
        self.at += word.len();
        Ok(())
    }

    /// Steps over a number as JSON writes it (a sign, an integer without leading zeros, a
    /// fraction, an exponent); its value when it is a non-negative integer of at most 19
    /// digits (as serde_json reads those: a `u64`).
    fn number(&mut self) -> Result<Option<u64>, Unsure> {
        let b = self.text.as_bytes();
        let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
        let mut i = self.at;
        let negative = b.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let int = i;
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while digit(i) {
                    i += 1;
                }
            }
            _ => return Err(Unsure),
        }
        let int_end = i;
        let mut plain = !negative;
        if b.get(i) == Some(&b'.') {
            i += 1;
            if !digit(i) {
                return Err(Unsure);
            }
            while digit(i) {
                i += 1;
            }
            plain = false;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digit(i) {
                return Err(Unsure);
            }
            while digit(i) {
                i += 1;
            }
            plain = false;
        }
        self.at = i;
        Ok((plain && int_end - int <= 19).then(|| {
            b[int..int_end]
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'))
        }))
    }

    /// The first byte of the next member or element of the object or array being read (past
    /// the comma that comes before each but the `first`); `None` at its `close`.
    fn next_item(&mut self, first: &mut bool, close: u8) -> Result<Option<u8>, Unsure> {
        let c = self.peek()?;
        if c == close {
            return Ok(None);
        }
        if std::mem::take(first) {
            return Ok(Some(c));
        }
        if c != b',' {
            return Err(Unsure);
        }
        self.at += 1;
        self.peek().map(Some)
    }

    /// Opens an array or object at `at`.
    fn enter(&mut self) -> Result<(), Unsure> {
        self.depth += 1;
        if self.depth > SKIM_DEPTH {
            return Err(Unsure);
        }
        self.at += 1;
        Ok(())
    }

    /// Steps over the next value, checked as serde_json checks a value it ignores.
    fn skip(&mut self) -> Result<(), Unsure> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => {
                self.enter()?;
                if self.peek()? != b'}' {
                    loop {
                        if self.peek()? != b'"' {
                            return Err(Unsure);
                        }
                        self.string()?;
                        self.eat(b':')?;
                        self.skip()?;
                        match self.peek()? {
                            b',' => self.at += 1,
                            b'}' => break,
                            _ => return Err(Unsure),
                        }
                    }
                }
                self.at += 1;
                self.depth -= 1;
                Ok(())
            }
            b'[' => {
                self.enter()?;
                if self.peek()? != b']' {
                    loop {
                        self.skip()?;
                        match self.peek()? {
                            b',' => self.at += 1,
                            b']' => break,
                            _ => return Err(Unsure),
                        }
                    }
                }
                self.at += 1;
                self.depth -= 1;
                Ok(())
            }
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            _ => self.number().map(drop),
        }
    }

    /// The next value read by serde_json from its text, as `read` asks for it.
    fn by_serde_json<T>(
        &mut self,
        read: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
        ) -> serde_json::Result<T>,
    ) -> Result<T, Unsure> {
        self.ws();
        let start = self.at;
        self.skip()?;
        json_text(&self.text[start..self.at], read)
    }
}

/// `text`, one JSON value, read by serde_json as `read` asks for it.
fn json_text<'de, T>(
    text: &'de str,
    read: impl FnOnce(
        &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
    ) -> serde_json::Result<T>,
) -> Result<T, Unsure> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = read(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Deserializer methods the skim leaves to serde_json: the next value's text read by it.
macro_rules! by_serde_json {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => { $(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* v: V) -> Result<V::Value, Unsure> {
            self.by_serde_json(|de| de.$method($($arg,)* v))
        }
    )* };
}

impl<'de> Deserializer<'de> for &mut Skim<'de> {
    type Error = Unsure;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Unsure> {
        match self.peek()? {
            b'"' => {
                let start = self.at;
                if self.string()? {
                    json_text(&self.text[start..self.at], |de| de.deserialize_any(v))
                } else {
                    v.visit_borrowed_str(&self.text[start + 1..self.at - 1])
                }
            }
            b'{' => {
                self.enter()?;
                let r = v.visit_map(SkimMembers {
                    de: &mut *self,
                    first: true,
                })?;
                self.eat(b'}')?;
                self.depth -= 1;
                Ok(r)
            }
            b'[' => {
                self.enter()?;
                let r = v.visit_seq(SkimElements {
                    de: &mut *self,
                    first: true,
                })?;
                self.eat(b']')?;
                self.depth -= 1;
                Ok(r)
            }
            b't' => self.literal("true").and_then(|()| v.visit_bool(true)),
            b'f' => self.literal("false").and_then(|()| v.visit_bool(false)),
            b'n' => self.literal("null").and_then(|()| v.visit_unit()),
            _ => {
                let start = self.at;
                match self.number()? {
                    Some(n) => v.visit_u64(n),
                    None => json_text(&self.text[start..self.at], |de| de.deserialize_any(v)),
                }
            }
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Unsure> {
        self.skip()?;
        v.visit_unit()
    }

    by_serde_json! {
        deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_i128() deserialize_u8() deserialize_u16()
        deserialize_u32() deserialize_u64() deserialize_u128() deserialize_f32()
        deserialize_f64() deserialize_char() deserialize_str() deserialize_string()
        deserialize_bytes() deserialize_byte_buf() deserialize_option() deserialize_unit()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_seq() deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_map()
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
        deserialize_identifier()
    }
}

/// An object's members, read by the skim.
struct SkimMembers<'s, 'de> {
    de: &'s mut Skim<'de>,
    first: bool,
}

impl<'de> MapAccess<'de> for SkimMembers<'_, 'de> {
    type Error = Unsure;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Unsure> {
        let Some(c) = self.de.next_item(&mut self.first, b'}')? else {
            return Ok(None);
        };
        if c != b'"' {
            return Err(Unsure);
        }
        let start = self.de.at;
        let escaped = self.de.string()?;
        let text = &self.de.text[start..self.de.at];
        self.de.eat(b':')?;
        seed.deserialize(KeyText { text, escaped }).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Unsure> {
        seed.deserialize(&mut *self.de)
    }
}

/// An array's elements, read by the skim.
struct SkimElements<'s, 'de> {
    de: &'s mut Skim<'de>,
    first: bool,
}

impl<'de> SeqAccess<'de> for SkimElements<'_, 'de> {
    type Error = Unsure;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Unsure> {
        if self.de.next_item(&mut self.first, b']')?.is_none() {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// Deserializer methods the skim does not take for a key: serde_json reads the text again.
macro_rules! key_left_to_serde_json {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => { $(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* _: V) -> Result<V::Value, Unsure> {
            let _ = ($($arg,)*);
            Err(Unsure)
        }
    )* };
}

/// An object's key (`text` with its quotes), read as serde_json reads a key as a string.
struct KeyText<'de> {
    text: &'de str,
    escaped: bool,
}

impl<'de> Deserializer<'de> for KeyText<'de> {
    type Error = Unsure;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Unsure> {
        if self.escaped {
            json_text(self.text, |de| de.deserialize_str(v))
        } else {
            v.visit_borrowed_str(&self.text[1..self.text.len() - 1])
        }
    }

    serde::forward_to_deserialize_any! { str string identifier ignored_any }

    // A key read as anything but a string (serde_json reads `"1"` as a number for a number
    // key): left to serde_json.
    key_left_to_serde_json! {
        deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_i128() deserialize_u8() deserialize_u16()
        deserialize_u32() deserialize_u64() deserialize_u128() deserialize_f32()
        deserialize_f64() deserialize_char()
        deserialize_bytes() deserialize_byte_buf() deserialize_option() deserialize_unit()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_seq() deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_map()
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    lax_object! {
        struct Item<'a> {
            kind: Str<'a> = "type",
            n: U64 = "n",
            f: F64 = "f",
            b: Bool = "b",
            raw: Raw<'a> = "raw",
            list: List<Item<'a>> = "list",
            tail: Str<'a> = "tail",
        }
    }

    #[test]
    fn every_kind_a_type_does_not_take_is_skipped_whole_and_absent() {
        let kinds = [
            "true",
            "-1",
            "7",
            "1.5",
            r#""s""#,
            "null",
            r#"[1,{"a":[]}]"#,
            r#"{"a":[1]}"#,
        ];
        for v in kinds {
            let t = format!(r#"{{"type":{v},"n":{v},"b":{v},"list":{v},"tail":"ok"}}"#);
            let it: Item = serde_json::from_str(&t).unwrap();
            assert_eq!(it.kind.get(), (v == r#""s""#).then_some("s"), "{v}");
            assert_eq!(it.n.0, (v == "7").then_some(7), "{v}");
            assert_eq!(it.b.0, (v == "true").then_some(true), "{v}");
            assert_eq!(it.list.0.is_some(), v.starts_with('['), "{v}");
            // What followed the skipped values is still read.
            assert_eq!(it.tail.get(), Some("ok"), "{v}");
            let whole: Item = serde_json::from_str(v).unwrap();
            assert!(
                whole.kind.get().is_none() && whole.tail.get().is_none(),
                "{v}"
            );
        }
    }

    #[test]
    fn fields_read_as_value_lookups_do() {
        let t = r#"{"type":"a\"b","n":-1,"f":3,"b":1,"raw":null,"list":[1,{"type":"x","type":"y","n":7}],"z":{"q":[]}}"#;
        let it: Item = serde_json::from_str(t).unwrap();
        assert_eq!(it.kind.get(), Some("a\"b"));
        assert_eq!((it.n.0, it.f.0, it.b.0), (None, Some(3.0), None));
        assert!(it.raw.0.is_some() && it.raw.non_null().is_none());
        let l = it.list.items();
        assert_eq!(l.len(), 2);
        assert!(l[0].kind.get().is_none());
        assert_eq!((l[1].kind.get(), l[1].n.0), (Some("y"), Some(7)));
        let it: Item = serde_json::from_str(r#"{"type":7,"list":{"a":1}}"#).unwrap();
        assert!(it.kind.get().is_none() && it.list.0.is_none());
        assert!(serde_json::from_str::<Item>(r#"{"type":"#).is_err());
    }

    #[test]
    fn text_or_list_and_any_read_as_a_value_does() {
        lax_object! {
            struct Msg<'a> {
                content: TextOrList<'a, Any<'a>> = "content",
            }
        }
        let m: Msg = serde_json::from_str(r#"{"content":"a\nb"}"#).unwrap();
        assert!(matches!(m.content, TextOrList::Text(t) if t == "a\nb"));
        for other in ["1", "null", "{}", "true"] {
            let text = format!(r#"{{"content":{other}}}"#);
            let m: Msg = serde_json::from_str(&text).unwrap();
            assert!(matches!(m.content, TextOrList::None), "{other}");
        }
        let t = r#"[{"type":"x","url":"u\u00e9","type":"y","n":[1,{"a":2.50}]},"s",[1],7,null]"#;
        let text = format!(r#"{{"content":{t}}}"#);
        let m: Msg = serde_json::from_str(&text).unwrap();
        let TextOrList::List(items) = m.content else {
            panic!("not a list")
        };
        let want: Value = serde_json::from_str(t).unwrap();
        let got: Vec<Value> = items.iter().map(Any::to_value).collect();
        assert_eq!(Value::Array(got.clone()), want);
        // Written back as the `Value` is, duplicate keys and key order included.
        assert_eq!(serde_json::to_string(&got).unwrap(), want.to_string());
        assert_eq!(items[0].str("type").as_deref(), Some("y"));
        assert_eq!(items[0].str("url").as_deref(), Some("u\u{e9}"));
        assert!(items[0].str("n").is_none() && items[1].str("type").is_none());
        assert!(serde_json::from_str::<Msg>(r#"{"content":[{"a":}]}"#).is_err());
    }

    use proptest::prelude::*;

    proptest! {
        /// Any object (keys repeated, values of every kind, escapes, numbers in several
        /// forms): the rest written as `serde_json` writes the `Value` with the key removed.
        #[test]
        fn any_object_without_a_key_is_written_as_serde_json_writes_it(
            members in proptest::collection::vec(
                (
                    prop_oneof![
                        Just("sources".to_owned()),
                        "[a-c\u{e9}\"]{0,2}",
                    ],
                    prop_oneof![
                        Just("null".to_owned()),
                        Just("false".to_owned()),
                        Just("-0".to_owned()),
                        Just("1.50".to_owned()),
                        Just("1E2".to_owned()),
                        Just("[ 1, {\"a\" : \"\\/\"} ]".to_owned()),
                        Just("\"\\u0061\\/\"".to_owned()),
                        "[0-9]{1,20}".prop_filter("JSON", |d| d == "0" || !d.starts_with('0')),
                        "\\PC{0,6}".prop_map(|t| serde_json::to_string(&t).unwrap()),
                    ],
                ),
                0..8,
            ),
        ) {
            let text = format!(
                "{{ {} }}",
                members
                    .iter()
                    .map(|(k, v)| format!("{} : {v}", serde_json::to_string(k).unwrap()))
                    .collect::<Vec<_>>()
                    .join(" , ")
            );
            let raw: Box<RawValue> = serde_json::from_str(&text).unwrap();
            let mut want: Value = serde_json::from_str(&text).unwrap();
            want.as_object_mut().unwrap().remove("sources");
            let got = raw_without::<IgnoredAny>(Some(&raw), "sources");
            let url = want.get("url").and_then(Value::as_str).map(str::to_owned);
            prop_assert_eq!(got.rest_str("url").map(|u| u.into_owned()), url);
            let written = got.raw.unwrap().get().to_owned();
            prop_assert_eq!(written, want.to_string());
        }
    }

    #[test]
    fn a_key_removed_as_serde_json_removes_it() {
        let t = r#"{ "type": "search", "sources": [{"url": "u"}], "query": "q", "x": 1.50 }"#;
        let want = {
            let mut v: Value = serde_json::from_str(t).unwrap();
            v.as_object_mut().unwrap().remove("sources");
            serde_json::value::to_raw_value(&v).unwrap()
        };
        let raw: Box<RawValue> = serde_json::from_str(t).unwrap();
        let got = raw_without::<IgnoredAny>(Some(&raw), "sources")
            .raw
            .unwrap();
        assert_eq!(got.get(), want.get());
        let none = raw_without::<IgnoredAny>(None, "sources");
        assert_eq!(none.raw.unwrap().get(), "null");
        // Read in the same pass: the removed value (the last when the key repeats), the rest.
        let t = r#"{"sources": [1], "url": "a", "sources": [{"url": "u"}], "url": "b"}"#;
        let raw: Box<RawValue> = serde_json::from_str(t).unwrap();
        let got = raw_without::<List<Item>>(Some(&raw), "sources");
        assert_eq!(got.rest_str("url").as_deref(), Some("b"));
        assert_eq!(got.raw.unwrap().get(), r#"{"url":"b"}"#);
        assert_eq!(got.removed.unwrap().items().len(), 1);
        let raw: Box<RawValue> = serde_json::from_str("[1]").unwrap();
        let got = raw_without::<List<Item>>(Some(&raw), "sources");
        assert_eq!(got.raw.unwrap().get(), "[1]");
        let (sources, rest) = (got.removed, got.rest);
        assert!(sources.is_none() && rest.is_none());
    }

    /// Every field of an `Item`, as text (`-0.0` and `0.0` apart).
    fn show(it: &Item) -> String {
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            it.kind,
            it.n,
            it.f,
            it.b,
            it.raw.0.map(RawValue::get),
            it.list
                .0
                .as_ref()
                .map(|l| l.iter().map(show).collect::<Vec<_>>()),
            it.tail
        )
    }

    /// What the skim gave for `text` equals what serde_json gives, for a `Value`, a lax type
    /// and a document; and `from_str` answers as serde_json does, its error included.
    fn skim_agrees(text: &str) -> Result<(), String> {
        let json = serde_json::from_str::<Value>(text);
        if let Some(v) = skim::<Value>(text) {
            if json.as_ref().ok() != Some(&v) {
                return Err(format!("Value {v:?} / serde_json {json:?}"));
            }
        }
        let item = serde_json::from_str::<Item>(text).map(|i| show(&i));
        if let Some(i) = skim::<Item>(text) {
            if item.as_ref().ok() != Some(&show(&i)) {
                return Err(format!("Item {} / serde_json {item:?}", show(&i)));
            }
        }
        let doc = |d: &Document<Item>| (d.detection_keys, show(&d.fields));
        let want = serde_json::from_str::<Document<Item>>(text).map(|d| doc(&d));
        if let Some(d) = skim::<Document<Item>>(text) {
            if want.as_ref().ok() != Some(&doc(&d)) {
                return Err(format!("Document {:?} / serde_json {want:?}", doc(&d)));
            }
        }
        let got = from_str::<Value>(text).map_err(|e| e.to_string());
        if got != json.map_err(|e| e.to_string()) {
            return Err(format!("from_str {got:?}"));
        }
        Ok(())
    }

    /// JSON text, mostly valid: every kind of value, white space, escapes (lone surrogates,
    /// bad ones), numbers in every form (negative zero, leading zeros, past `u64`), keys the
    /// test types read (also escaped), and some text JSON has not.
    fn json_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("a"),
            Just("abcdefghijklmnopq"),
            Just("\u{e9}t\u{e9} "),
            Just("\\n"),
            Just("\\u003c"),
            Just("\\\""),
            Just("\\\\"),
            Just("\\/"),
            Just("\\ud83d\\ude00"),
            Just("\\ud800"),
            Just("\\x"),
            Just("\\u12g4"),
            Just("\u{1}"),
            Just("\""),
        ];
        let string =
            proptest::collection::vec(piece, 0..6).prop_map(|p| format!("\"{}\"", p.concat()));
        let leaf = prop_oneof![
            Just("null"),
            Just("true"),
            Just("false"),
            Just("nul"),
            Just("0"),
            Just("-0"),
            Just("01"),
            Just("7"),
            Just("-12"),
            Just("1.50"),
            Just("1e5"),
            Just("1E+2"),
            Just("2.5e-3"),
            Just("1."),
            Just("-"),
            Just("18446744073709551615"),
            Just("18446744073709551616"),
            Just("1234567890123456789"),
            Just("123456789012345678901234"),
        ]
        .prop_map(str::to_owned);
        let key = prop_oneof![
            Just("\"type\""),
            Just("\"n\""),
            Just("\"f\""),
            Just("\"b\""),
            Just("\"raw\""),
            Just("\"list\""),
            Just("\"tail\""),
            Just("\"\\u0074ype\""),
            Just("\"candidates\""),
            Just("\"x\""),
            Just("\"\\ud800\""),
            Just("7"),
        ];
        let ws = prop_oneof![Just(""), Just(" "), Just("\n  "), Just("\t\r\n")];
        prop_oneof![leaf, string.clone()].prop_recursive(4, 48, 6, move |inner| {
            let member = (ws.clone(), key.clone(), ws.clone(), inner.clone())
                .prop_map(|(w, k, w2, v)| format!("{w}{k}{w2}:{w}{v}{w2}"));
            prop_oneof![
                (proptest::collection::vec(member, 0..6), any::<u8>()).prop_map(|(m, t)| {
                    format!("{{{}{}}}", m.join(","), if t < 8 { "," } else { "" })
                }),
                (proptest::collection::vec(inner, 0..6), any::<u8>()).prop_map(|(e, t)| {
                    format!("[ {}{}]", e.join(" ,"), if t < 8 { "," } else { "" })
                }),
                string.clone(),
            ]
        })
    }

    proptest! {
        /// Any text, valid JSON or changed by a cut or an inserted byte: the skim gives what
        /// serde_json gives or leaves the text to it.
        #[test]
        fn the_skim_reads_what_serde_json_reads(
            text in json_text(),
            change in 0..4u8,
            at in any::<prop::sample::Index>(),
            byte in proptest::sample::select(vec!['{', '}', '[', ']', ',', ':', '"', '\\', '1', ' ', 'e']),
        ) {
            let chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            let text: String = match change {
                0 => chars[..i].iter().collect(),
                1 => chars[..i].iter().chain([byte].iter()).chain(&chars[i..]).collect(),
                _ => text,
            };
            prop_assert_eq!(skim_agrees(&text), Ok(()), "{}", text);
        }
    }

    #[test]
    fn the_skim_reads_a_gemini_response_as_serde_json_does_and_every_cut_of_it() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/formats/gemini-grounding/prism-search-grounding-1.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        // The skim reads it itself (it is not left to serde_json).
        let v = skim::<Value>(&text).expect("read by the skim");
        assert_eq!(v, serde_json::from_str::<Value>(&text).unwrap());
        assert!(skim::<Document<Item>>(&text).is_some());
        for (i, _) in text.char_indices() {
            assert_eq!(skim_agrees(&text[..i]), Ok(()), "cut at {i}");
        }
    }

    #[test]
    fn nesting_past_the_skims_depth_is_left_to_serde_json() {
        for depth in [63, 64, 65, 127, 128, 129, 200] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert_eq!(
                skim::<Value>(&text).is_some(),
                depth <= SKIM_DEPTH as usize,
                "{depth}"
            );
            assert_eq!(skim_agrees(&text), Ok(()), "{depth}");
            let text = format!("{{\"list\":{text},\"tail\":\"t\"}}");
            assert_eq!(skim_agrees(&text), Ok(()), "{depth}");
        }
    }
}

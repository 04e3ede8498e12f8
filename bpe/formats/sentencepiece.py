"""SentencePiece `.model` files (Llama 2, Mistral, Gemma, T5): known by their content.

A SentencePiece model is a protobuf message (sentencepiece_model.proto's ModelProto):
field 1 repeats the pieces (each: 1 the piece text, 2 its score, 3 its type), field 2 is
the trainer's settings (3 the model type), field 3 the normalizer's (3 add_dummy_prefix).
This module reads just enough of that wire format, without protobuf, to tell such a file
from the others and to check its size against bpe.budgets before `sentencepiece` parses
it; bpe.sentencepiece_bpe.SentencePieceTokenizer then runs the model, so ids are exactly
sentencepiece's. It does not encode anything itself.

Checked before sentencepiece sees the file (bpe.budgets): at most MAX_SENTENCEPIECE_PIECES
pieces (counted as they are read, so a larger file stops there), the vocabulary's bytes,
the control pieces (they become special tokens, so they get the limits special tokens of
every other file get), and the normalizer's charsmap (normalizer_spec field 2), read by
bpe.formats.hf.precompiled.Precompiled, whose replacement strings are bounded: a
charsmap bomb is a sentence here, not std::bad_alloc there.

>>> info = model_info(bytes([0x0A, 0x07, 0x0A, 0x03]) + "<s>".encode() + bytes([0x18, 0x03]))
>>> info.pieces, info.model_type, info.dummy_prefix
(1, 'unigram', True)
"""
import struct
from dataclasses import dataclass

from .. import budgets
from .hf.precompiled import Precompiled

MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}
PIECE_TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused",
               6: "byte"}


@dataclass(frozen=True)
class ModelInfo:
    """What a SentencePiece model file says about itself."""
    pieces: int          # how many pieces (the vocabulary's size)
    piece_bytes: int     # their text, in bytes, in all
    model_type: str      # "unigram" (protobuf's default), "bpe", "word" or "char"
    dummy_prefix: bool   # normalizer_spec.add_dummy_prefix (default true)
    controls: tuple = () # the control pieces' texts (they become special tokens)


def _varint(data, pos):
    """(value, next position) of the protobuf varint at pos; ValueError if it runs off."""
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("a varint runs past the end")
        b = data[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        if b < 0x80:
            return value, pos
        shift += 7


def _fields(data):
    """(field number, wire type, value) for each field of one message: value an int for
    varints and fixed-size numbers, a memoryview for length-delimited ones. ValueError for
    anything protobuf's wire format cannot hold."""
    pos, end = 0, len(data)
    while pos < end:
        key = data[pos]
        if key < 0x80:  # one byte, as nearly every key is: no call
            pos += 1
        else:
            key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise ValueError("field number 0")
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1 or wire == 5:
            size = 8 if wire == 1 else 4
            if pos + size > end:
                raise ValueError("a fixed-size field runs past the end")
            value, pos = int.from_bytes(data[pos:pos + size], "little"), pos + size
        elif wire == 2:
            if pos < end and data[pos] < 0x80:  # a length below 128: one byte
                size, pos = data[pos], pos + 1
            else:
                size, pos = _varint(data, pos)
            if pos + size > end:
                raise ValueError("a length-delimited field runs past the end")
            value, pos = data[pos:pos + size], pos + size
        else:
            raise ValueError(f"wire type {wire}")
        yield field, wire, value


UNK_SURFACE = 44  # trainer_spec's unk_surface (" ⁇ " by default)


def model_info(data):
    """ModelInfo of a SentencePiece model's bytes; ValueError if they are not one (not
    protobuf's wire format, no pieces, a piece that is not UTF-8) or pass the budgets."""
    data = memoryview(data)
    _count_pieces(data)
    pieces = piece_bytes = 0
    model_type, dummy_prefix = 1, True
    controls = {}
    for field, wire, value in _fields(data):
        if field == 1 and wire == 2:
            text, kind = _piece(value, pieces)
            pieces += 1
            piece_bytes += len(text)
            budgets.check_entries(pieces, f"piece {pieces - 1}",
                                  budgets.MAX_SENTENCEPIECE_PIECES, "pieces")
            if piece_bytes > budgets.MAX_VOCAB_BYTES:
                raise ValueError(f"its pieces hold more than {budgets.MAX_VOCAB_BYTES >> 20} "
                                 "MB of text, more than this lab accepts")
            if kind == 3:  # control: a special token, counted as it is read
                controls[text] = pieces - 1
                if len(controls) > budgets.MAX_SPECIAL_TOKENS:
                    budgets.check_special_ids(controls, (), "its control pieces")
        elif field == 2 and wire == 2:
            for f, w, v in _fields(value):
                if f == 3 and w == 0:
                    model_type = v
                elif f == UNK_SURFACE and w == 2 and len(v) > budgets.MAX_UNK_CHARS:
                    # decode writes it once per unknown id: 8 MB of it made GBs a run
                    raise ValueError(f"its unk_surface (what decode writes for an unknown "
                                     f"piece) is {len(v):,} bytes; this lab accepts at most "
                                     f"{budgets.MAX_UNK_CHARS:,}")
        elif field == 3 and wire == 2:
            for f, w, v in _fields(value):
                if f == 3 and w == 0:
                    dummy_prefix = bool(v)
                elif f == 2 and w == 2 and len(v):  # the charsmap: bounded before it runs
                    Precompiled(v, "its normalizer's precompiled_charsmap")
        elif field in (1, 2, 3):
            raise ValueError(f"field {field} has wire type {wire}")
    if not pieces:
        raise ValueError("no pieces")
    budgets.check_special_ids(controls, (), "its control pieces")
    return ModelInfo(pieces, piece_bytes, MODEL_TYPES.get(model_type, f"type {model_type}"),
                     dummy_prefix, tuple(controls))


def _count_pieces(data):
    """ValueError past MAX_SENTENCEPIECE_PIECES pieces, found by a pass that reads only
    each top-level field's key and length (~10x faster than reading the pieces), so a file
    of millions of pieces is refused in a fraction of a second."""
    pos, end, pieces = 0, len(data), 0
    limit = budgets.MAX_SENTENCEPIECE_PIECES
    while pos < end:
        if data[pos] == 0x0A and pos + 1 < end and data[pos + 1] < 0x80:  # a short piece
            pieces += 1
            if pieces > limit:
                budgets.check_entries(pieces, f"piece {pieces - 1}", limit, "pieces")
            pos += 2 + data[pos + 1]
            continue
        key, pos = _varint(data, pos)
        wire = key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        elif wire == 2:
            size, pos = _varint(data, pos)
            pieces += key >> 3 == 1
            pos += size
        else:
            return  # model_info names what is wrong


def _piece(message, index):
    """(text, type) of one ModelProto.SentencePiece (1 its text, 3 its type, 1 normal)."""
    if message[:1] == b"\x0a" and len(message) > 1 and message[1] < 0x80:
        # the layout sentencepiece writes: text (shorter than 128 bytes), score, type if
        # not normal; read in place, ~3x faster than field by field (other layouts below)
        end = 2 + message[1]
        rest = message[end:]
        if end <= len(message) and rest[:1] == b"\x15" and (
                len(rest) == 5 or len(rest) == 7 and rest[5] == 0x18 and rest[6] < 0x80):
            kind = rest[6] if len(rest) == 7 else 1
            return str(message[2:end], "utf-8"), kind  # UnicodeDecodeError is a ValueError
    text, kind = None, 1
    for f, w, v in _fields(message):
        if f == 1 and w == 2:
            text = bytes(v).decode("utf-8")  # UnicodeDecodeError is a ValueError
        elif f == 3 and w == 0:
            kind = v
    if text is None:
        raise ValueError(f"piece {index} has no text")
    return text, kind


def looks_like_sentencepiece(data):
    """True if data starts as a ModelProto does: field 1 (a piece), holding field 1 (its text)."""
    return len(data) > 3 and data[0] == 0x0A and _inner_starts_with_text(data)


def _inner_starts_with_text(data):
    try:
        _, pos = _varint(data, 1)
    except ValueError:
        return False
    return pos < len(data) and data[pos] == 0x0A


# ------------------------------------------------------------------ writing (GGUF's t5)
def unigram_model(pieces, scores, types, *, unk_id, charsmap=b"", add_dummy_prefix=True,
                  remove_extra_whitespaces=True):
    """A Unigram ModelProto's bytes from a vocabulary (piece text, score and type id by id,
    types numbered as PIECE_TYPES), the normalizer's charsmap and its space settings
    (escape_whitespaces on): what `sentencepiece` loads to check a GGUF t5 file
    (bpe.formats.gguf_families.t5_sentencepiece_model). Written field by field, as model_info
    reads them, so protobuf is not needed.

    >>> model_info(unigram_model(["<unk>", "a"], [0.0, -1.0], [2, 1], unk_id=0)).pieces
    2
    """
    def varint(value):
        out = bytearray()
        while True:
            out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
            value >>= 7
            if not value:
                return bytes(out)

    def field(number, payload):  # a length-delimited field (wire type 2)
        return varint(number << 3 | 2) + varint(len(payload)) + payload

    def number(number, value):  # a varint field (wire type 0)
        return varint(number << 3) + varint(value)

    out = [field(1, field(1, piece.encode("utf-8")) + varint(2 << 3 | 5)
                 + struct.pack("<f", score) + number(3, kind))
           for piece, score, kind in zip(pieces, scores, types)]
    out.append(field(2, number(3, 1) + number(40, unk_id)))  # model_type UNIGRAM, unk_id
    out.append(field(3, field(1, b"gguf") + field(2, bytes(charsmap))
                     + number(3, add_dummy_prefix) + number(4, remove_extra_whitespaces)
                     + number(5, True)))
    return b"".join(out)

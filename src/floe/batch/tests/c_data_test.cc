#include "floe/batch/c_data.h"

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/testing/matchers.h"

namespace floe {
namespace {

using testing::IsError;
using testing::IsErrorWith;

// Counts release calls on exported base structures by interposing on them.
int g_array_releases = 0;
int g_schema_releases = 0;
void (*g_array_release)(ArrowArray*) = nullptr;
void (*g_schema_release)(ArrowSchema*) = nullptr;

void CountingArrayRelease(ArrowArray* a) {
  ++g_array_releases;
  a->release = g_array_release;
  g_array_release(a);
}
void CountingSchemaRelease(ArrowSchema* s) {
  ++g_schema_releases;
  s->release = g_schema_release;
  g_schema_release(s);
}
void Count(ArrowArray* a, ArrowSchema* s) {
  g_array_release = a->release;
  a->release = &CountingArrayRelease;
  g_schema_release = s->release;
  s->release = &CountingSchemaRelease;
}

// Exports `array` with `field`'s schema, imports it back, and checks equality and
// that each base structure is released exactly once.
void RoundTrip(const ArrayPtr& array, const Field& field) {
  SCOPED_TRACE(field.ToString());
  g_array_releases = g_schema_releases = 0;
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_OK(ExportArray(array, &c_array));
  ASSERT_OK(ExportField(field, &c_schema));
  Count(&c_array, &c_schema);
  {
    ASSERT_OK_AND_ASSIGN(Field imported_field, ImportField(&c_schema));
    EXPECT_TRUE(imported_field.Equals(field)) << imported_field.ToString();
    EXPECT_EQ(g_schema_releases, 1);
    EXPECT_EQ(c_schema.release, nullptr);
    ASSERT_OK_AND_ASSIGN(ArrayPtr imported, ImportArray(&c_array, field.type()));
    EXPECT_EQ(c_array.release, nullptr);  // moved out
    EXPECT_TRUE(imported->Equals(*array));
    EXPECT_OK(imported->ValidateFull());
    EXPECT_EQ(imported->offset(), array->offset());
    // Zero copy: the values are the exported memory.
    if (array->buffers().size() > 1 && array->buffer(1)) {
      EXPECT_EQ(imported->buffer(1)->data(), array->buffer(1)->data());
    }
    EXPECT_EQ(g_array_releases, 0);
    ArrayPtr keep = imported->Slice(0, imported->length());
    imported.reset();
    EXPECT_EQ(g_array_releases, 0);  // the slice still views it
  }
  EXPECT_EQ(g_array_releases, 1);
}

template <typename F>
ArrayPtr Build(TypePtr type, F fill) {
  auto b = MakeBuilder(std::move(type));
  fill(b.get());
  return b->Finish().ValueOrDie();
}

void Ok(Status s) { FLOE_CHECK(s.ok(), s.ToString()); }

ArrayPtr WithNulls(TypePtr type, int n) {
  // Values through scalars of each primitive kind; every third is NULL.
  return Build(type, [&](ArrayBuilder* b) {
    for (int i = 0; i < n; ++i) {
      if (i % 3 == 1) {
        Ok(b->AppendNull());
      } else {
        Ok(b->AppendEmptyValues(1));
      }
    }
  });
}

TEST(CDataTest, PrimitiveTypesWithNullsAndOffsets) {
  std::vector<ArrayPtr> arrays;
  arrays.push_back(Build(Boolean(), [](ArrayBuilder* b) {
    auto* bb = static_cast<BooleanBuilder*>(b);
    for (int i = 0; i < 19; ++i) Ok(i % 4 == 2 ? bb->AppendNull() : bb->Append(i % 3 == 0));
  }));
  arrays.push_back(Build(Int8(), [](ArrayBuilder* b) {
    for (int i = 0; i < 19; ++i) Ok(static_cast<Int8Builder*>(b)->Append(static_cast<int8_t>(i)));
    Ok(b->AppendNull());
  }));
  arrays.push_back(Build(Int16(), [](ArrayBuilder* b) {
    for (int i = 0; i < 19; ++i)
      Ok(static_cast<Int16Builder*>(b)->Append(static_cast<int16_t>(-i)));
  }));
  for (TypePtr t : {Int32(), Date()}) {
    arrays.push_back(Build(t, [](ArrayBuilder* b) {
      for (int i = 0; i < 19; ++i)
        Ok(i % 5 == 0 ? b->AppendNull() : static_cast<Int32Builder*>(b)->Append(i * 1000));
    }));
  }
  for (TypePtr t : {Int64(), Time(), Timestamp(), TimestampTz(), TimestampNs(), TimestampTzNs()}) {
    arrays.push_back(Build(t, [](ArrayBuilder* b) {
      for (int i = 0; i < 19; ++i)
        Ok(i % 5 == 0 ? b->AppendNull() : static_cast<Int64Builder*>(b)->Append(int64_t{i} << 40));
    }));
  }
  arrays.push_back(Build(Float32(), [](ArrayBuilder* b) {
    for (int i = 0; i < 19; ++i) Ok(static_cast<Float32Builder*>(b)->Append(i * 0.5f));
    Ok(b->AppendNull());
  }));
  arrays.push_back(Build(Float64(), [](ArrayBuilder* b) {
    for (int i = 0; i < 19; ++i) Ok(static_cast<Float64Builder*>(b)->Append(i * 0.25));
    Ok(b->AppendNull());
  }));
  arrays.push_back(Build(Decimal(38, 9), [](ArrayBuilder* b) {
    for (int i = 0; i < 19; ++i) Ok(static_cast<DecimalBuilder*>(b)->Append(-(Int128{i} << 100)));
    Ok(b->AppendNull());
  }));
  for (TypePtr t : {String(), Binary()}) {
    arrays.push_back(Build(t, [](ArrayBuilder* b) {
      for (int i = 0; i < 19; ++i)
        Ok(i % 4 == 0
               ? b->AppendNull()
               : static_cast<BinaryBuilder*>(b)->Append(std::string(static_cast<size_t>(i), 'x')));
    }));
  }
  for (TypePtr t : {Fixed(3), Uuid()}) {
    arrays.push_back(Build(t, [&](ArrayBuilder* b) {
      for (int i = 0; i < 19; ++i)
        Ok(i % 4 == 0 ? b->AppendNull()
                      : static_cast<FixedSizeBinaryBuilder*>(b)->Append(std::string(
                            static_cast<size_t>(t->byte_width()), static_cast<char>('a' + i))));
    }));
  }
  for (const ArrayPtr& a : arrays) {
    Field f("col", a->type(), true, 7, {{"k", "v"}});
    RoundTrip(a, f);
    RoundTrip(a->Slice(3, 11), f.WithFieldId(kNoFieldId).WithNullable(false));
    RoundTrip(a->Slice(a->length(), 0), f);
    RoundTrip(WithNulls(a->type(), 10)->Slice(1, 8), f);
  }
}

TEST(CDataTest, NestedTypesWithFieldIds) {
  auto inner = Field("b", List(Field("element", String(), true, 4)), true, 3);
  auto st = Struct({Field("a", Int32(), false, 2), inner});
  auto list_type = List(Field("element", st, true, 1));
  ArrayPtr list = Build(list_type, [](ArrayBuilder* b) {
    auto* l = static_cast<ListBuilder*>(b);
    auto* s = static_cast<StructBuilder*>(l->value_builder());
    auto* a = static_cast<Int32Builder*>(s->field_builder(0));
    auto* bl = static_cast<ListBuilder*>(s->field_builder(1));
    auto* str = static_cast<BinaryBuilder*>(bl->value_builder());
    for (int i = 0; i < 6; ++i) {
      if (i == 2) {
        Ok(l->AppendNull());
        continue;
      }
      Ok(l->Append());
      for (int j = 0; j < i; ++j) {
        Ok(s->Append());
        Ok(a->Append(i * 10 + j));
        if (j == 1) {
          Ok(bl->AppendNull());
        } else {
          Ok(bl->Append());
          for (int k = 0; k < j; ++k) Ok(str->Append(std::to_string(k)));
        }
      }
      if (i == 4) Ok(s->AppendNull());
    }
  });
  Field f("nested", list_type, true, 9);
  RoundTrip(list, f);
  RoundTrip(list->Slice(2, 3), f);

  auto map_type = Map(Field("key", String(), false, 11), Field("value", List(Int32()), true, 12));
  ArrayPtr map = Build(map_type, [](ArrayBuilder* b) {
    auto* m = static_cast<MapBuilder*>(b);
    auto* k = static_cast<BinaryBuilder*>(m->key_builder());
    auto* v = static_cast<ListBuilder*>(m->item_builder());
    auto* ints = static_cast<Int32Builder*>(v->value_builder());
    for (int i = 0; i < 5; ++i) {
      if (i == 1) {
        Ok(m->AppendNull());
        continue;
      }
      Ok(m->Append());
      for (int j = 0; j < i; ++j) {
        Ok(k->Append("k" + std::to_string(j)));
        Ok(v->Append());
        Ok(ints->Append(j));
      }
    }
  });
  RoundTrip(map, Field("m", map_type, false, 10));
  RoundTrip(map->Slice(1, 3), Field("m", map_type));

  // A struct with an offset exports its offset and whole children.
  ArrayPtr structs = list->child(0);
  RoundTrip(structs->Slice(2, 5), Field("s", st));
}

TEST(CDataTest, ExportedSchemaFollowsTheSpec) {
  ArrowSchema s;
  ASSERT_OK(ExportField(Field("id", Uuid(), false, 42), &s));
  EXPECT_STREQ(s.format, "w:16");
  EXPECT_STREQ(s.name, "id");
  EXPECT_EQ(s.flags, 0);
  // int32 count, then length-prefixed keys and values.
  ASSERT_NE(s.metadata, nullptr);
  int32_t count;
  std::memcpy(&count, s.metadata, 4);
  EXPECT_EQ(count, 3);
  std::string first(s.metadata + 8, 16);
  EXPECT_EQ(first, "PARQUET:field_id");
  s.release(&s);
  EXPECT_EQ(s.release, nullptr);

  ASSERT_OK(ExportType(*Map(String(), Int64()), &s));
  EXPECT_STREQ(s.format, "+m");
  EXPECT_EQ(s.flags & ARROW_FLAG_MAP_KEYS_SORTED, 0);
  ASSERT_EQ(s.n_children, 1);
  EXPECT_STREQ(s.children[0]->format, "+s");
  EXPECT_STREQ(s.children[0]->name, "entries");
  EXPECT_EQ(s.children[0]->flags, 0);
  ASSERT_EQ(s.children[0]->n_children, 2);
  EXPECT_STREQ(s.children[0]->children[0]->format, "u");
  EXPECT_STREQ(s.children[0]->children[1]->format, "l");
  EXPECT_EQ(s.children[0]->children[1]->flags, ARROW_FLAG_NULLABLE);
  s.release(&s);

  struct Case {
    TypePtr type;
    const char* format;
  };
  for (const Case& c : std::vector<Case>{{Boolean(), "b"},
                                         {Int8(), "c"},
                                         {Int16(), "s"},
                                         {Int32(), "i"},
                                         {Int64(), "l"},
                                         {Float32(), "f"},
                                         {Float64(), "g"},
                                         {Decimal(12, 3), "d:12,3"},
                                         {Date(), "tdD"},
                                         {Time(), "ttu"},
                                         {Timestamp(), "tsu:"},
                                         {TimestampTz(), "tsu:UTC"},
                                         {TimestampNs(), "tsn:"},
                                         {TimestampTzNs(), "tsn:UTC"},
                                         {String(), "u"},
                                         {Binary(), "z"},
                                         {Fixed(5), "w:5"},
                                         {Struct({Field("a", Int32())}), "+s"},
                                         {List(Int32()), "+l"}}) {
    ASSERT_OK(ExportType(*c.type, &s));
    EXPECT_STREQ(s.format, c.format);
    ASSERT_OK_AND_ASSIGN(TypePtr back, ImportType(&s));
    EXPECT_TRUE(back->Equals(*c.type)) << back->ToString();
  }
}

TEST(CDataTest, SchemasAndRecordBatches) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("id", Int64(), false, 1), Field("name", String(), true, 2),
                         Field("tags", List(Field("element", String(), true, 3)), true, 4)},
      KeyValueMetadata{{"iceberg.schema", "{}"}});
  ArrayPtr ids = Build(Int64(), [](ArrayBuilder* b) {
    for (int i = 0; i < 5; ++i) Ok(static_cast<Int64Builder*>(b)->Append(i));
  });
  ArrayPtr names = WithNulls(String(), 5);
  ArrayPtr tags = Build(schema->field(2).type(), [](ArrayBuilder* b) {
    auto* l = static_cast<ListBuilder*>(b);
    for (int i = 0; i < 5; ++i) {
      Ok(l->Append());
      for (int j = 0; j < i; ++j) Ok(static_cast<BinaryBuilder*>(l->value_builder())->Append("t"));
    }
  });
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 5, {ids, names, tags}));
  for (const auto& b : {batch, batch->Slice(1, 3)}) {
    ArrowArray c_array;
    ArrowSchema c_schema;
    ASSERT_OK(ExportRecordBatch(*b, &c_array, &c_schema));
    g_array_releases = g_schema_releases = 0;
    Count(&c_array, &c_schema);
    ASSERT_OK_AND_ASSIGN(auto back, ImportRecordBatch(&c_array, &c_schema));
    EXPECT_TRUE(back->schema()->Equals(*schema)) << back->schema()->ToString();
    EXPECT_TRUE(back->Equals(*b));
    EXPECT_EQ(g_schema_releases, 1);
    back.reset();
    EXPECT_EQ(g_array_releases, 1);
  }
}

TEST(CDataTest, ImportErrors) {
  // Unknown formats name the format.
  ArrowSchema s;
  ASSERT_OK(ExportType(*Int32(), &s));
  s.format = "U";
  EXPECT_THAT(ImportType(&s), IsErrorWith(StatusCode::kNotSupported, "'U'"));
  EXPECT_EQ(s.release, nullptr);
  ASSERT_OK(ExportType(*Int32(), &s));
  s.format = "+w:4";
  EXPECT_THAT(ImportType(&s), IsErrorWith(StatusCode::kNotSupported, "'+w:4'"));
  ASSERT_OK(ExportType(*Decimal(5, 1), &s));
  s.format = "d:5,1,256";
  EXPECT_THAT(ImportType(&s), IsErrorWith(StatusCode::kNotSupported, "d:5,1,256"));
  // A list without its child.
  ASSERT_OK(ExportType(*List(Int32()), &s));
  s.n_children = 0;
  EXPECT_THAT(ImportType(&s), IsErrorWith(StatusCode::kInvalidArgument, "children"));
  EXPECT_THAT(ImportType(&s), IsErrorWith(StatusCode::kInvalidArgument, "released"));

  ArrayPtr ints =
      Build(Int32(), [](ArrayBuilder* b) { Ok(static_cast<Int32Builder*>(b)->Append(1)); });
  ArrowArray a;
  ASSERT_OK(ExportArray(ints, &a));
  a.n_buffers = 3;
  EXPECT_THAT(ImportArray(&a, Int32()), IsErrorWith(StatusCode::kInvalidArgument, "buffers"));
  EXPECT_EQ(a.release, nullptr);  // taken and released
  ASSERT_OK(ExportArray(ints, &a));
  a.n_children = 1;
  EXPECT_THAT(ImportArray(&a, Int32()), IsErrorWith(StatusCode::kInvalidArgument, "children"));
  EXPECT_THAT(ImportArray(&a, Int32()), IsErrorWith(StatusCode::kInvalidArgument, "released"));
  // Children are checked against the type.
  ASSERT_OK(ExportArray(ints, &a));
  EXPECT_THAT(ImportArray(&a, List(Int32())), IsError(StatusCode::kInvalidArgument));

  // The array is released when the schema fails to import.
  ASSERT_OK(ExportArray(ints, &a, &s));
  s.format = "?";
  EXPECT_THAT(ImportArray(&a, &s), IsError(StatusCode::kNotSupported));
  EXPECT_EQ(a.release, nullptr);
}

TEST(CDataTest, MemoryIsFreedAfterRelease) {
  CountingMemoryPool pool;
  {
    auto b = MakeBuilder(List(String()), &pool);
    auto* l = static_cast<ListBuilder*>(b.get());
    Ok(l->Append());
    Ok(static_cast<BinaryBuilder*>(l->value_builder())->Append("abc"));
    ArrowArray a;
    ArrowSchema s;
    {
      ArrayPtr arr = b->Finish().ValueOrDie();
      ASSERT_OK(ExportArray(arr, &a, &s));
    }
    EXPECT_GT(pool.bytes_allocated(), 0);
    ASSERT_OK_AND_ASSIGN(auto back, ImportArray(&a, &s));
    EXPECT_EQ(back->child(0)->BytesValue(0), "abc");
  }
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

}  // namespace
}  // namespace floe

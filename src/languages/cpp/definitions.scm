; C++ definitions for the auto-fix code index.
; Captures: @class (class, struct, union, enum) / @function / @method (the definition node), @scope (a
; namespace: its name prefixes the names inside it, it is no unit itself), @name (a qualified name such
; as `Parser::parse` names the method and its class), @bases, @attribute (data members).

(class_specifier
  name: (type_identifier) @name
  (base_class_clause)? @bases
  body: (field_declaration_list)) @class

(struct_specifier
  name: (type_identifier) @name
  (base_class_clause)? @bases
  body: (field_declaration_list)) @class

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @class

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @class

; Specializations: `template <> struct Traits<int*> { … }`
(class_specifier
  name: (template_type name: (type_identifier) @name)
  (base_class_clause)? @bases
  body: (field_declaration_list)) @class

(struct_specifier
  name: (template_type name: (type_identifier) @name)
  (base_class_clause)? @bases
  body: (field_declaration_list)) @class

; `class EXPORT_MACRO Name { … }`: the grammar reads the macro as the class's name and the class as a
; function named Name; no function definition has a bare name for its declarator.
(function_definition
  type: [(class_specifier) (struct_specifier)]
  declarator: (identifier) @name
  body: (compound_statement)) @class

; ...and its member functions' declarations, read as statements (after `public:`, a labeled one).
(function_definition
  type: [(class_specifier) (struct_specifier)]
  declarator: (identifier)
  body: (compound_statement
    [
      (declaration declarator: (function_declarator declarator: (identifier) @name)) @function
      (labeled_statement
        (declaration declarator: (function_declarator declarator: (identifier) @name)) @function)
    ]))

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @scope

; Functions and member functions defined in place: `int f() {}`, `int* f() {}`, `T& f() {}`.
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)) @function

(function_definition
  declarator: (_
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))) @function

(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))) @function

; Member functions defined outside their class: `int Parser::parse() {}`.
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier) @name)) @method

(function_definition
  declarator: (_
    declarator: (function_declarator
      declarator: (qualified_identifier) @name))) @method

(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: (qualified_identifier) @name))) @method

; Functions declared at the top, in a namespace or in `extern "C" { … }` (a header's prototypes): the
; declaration and the definition are both found.
(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (operator_name)] @name)
      (_ declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @function)

(declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (operator_name)] @name)
      (_ declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @function)

(template_declaration
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (operator_name)] @name)
      (_ declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @function)

; Member functions declared in a class body (defined elsewhere, often in the .cpp file).
(field_declaration_list
  (field_declaration
    declarator: (function_declarator
      declarator: [(field_identifier) (operator_name) (destructor_name)] @name)) @function)

(field_declaration_list
  (field_declaration
    declarator: (_
      declarator: (function_declarator
        declarator: [(field_identifier) (operator_name)] @name))) @function)

(field_declaration_list
  (field_declaration
    declarator: (reference_declarator
      (function_declarator
        declarator: [(field_identifier) (operator_name)] @name))) @function)

; Constructors and destructors declared in a class body: `Parser(int n);`, `~Parser();`.
(field_declaration_list
  (declaration
    declarator: (function_declarator
      declarator: [(identifier) (destructor_name)] @name)) @function)

(field_declaration_list (field_declaration) @attribute)

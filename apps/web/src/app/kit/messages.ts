/** Texts of the list/form kit, in both languages (merged into the catalogues by i18n/index.ts). */
export const en = {
  kit: {
    record_unavailable: 'This record cannot be opened',
    record_unavailable_hint: 'It does not exist, or you are not allowed to see it.',
    record_failed: 'The record could not be loaded',
    back_to_list: 'Back to the list',
    search: 'Search',
    upload: 'Choose a file',
    no_file: 'No file chosen',
    download: 'Download',
    busy: 'Working…',
  },
  structure: {
    export_title: 'Export users by group',
    import_title: 'Import users by group',
    export_hint: 'A spreadsheet of the group, the groups below it and their users. Dates are in your time zone.',
    import_hint:
      'A spreadsheet in the export format (.xlsx). Users are found by id or login and attached; new ones are created with the role chosen.',
    group: 'Group',
    domain_type: 'Only groups of the type',
    all_types: 'All types',
    role: 'Role of new users',
    no_role: 'No role',
    import: 'Import',
    result: 'Users attached: %{attached}, created: %{created}, rows with errors: %{errors}',
    row: 'Row',
    field: 'Column',
    error: 'Error',
  },
};

export const ru: typeof en = {
  kit: {
    record_unavailable: 'Эту запись нельзя открыть',
    record_unavailable_hint: 'Её нет, или у вас нет прав на её просмотр.',
    record_failed: 'Не удалось загрузить запись',
    back_to_list: 'Назад к списку',
    search: 'Поиск',
    upload: 'Выбрать файл',
    no_file: 'Файл не выбран',
    download: 'Скачать',
    busy: 'Выполняется…',
  },
  structure: {
    export_title: 'Экспорт пользователей по группе',
    import_title: 'Импорт пользователей по группе',
    export_hint: 'Таблица группы, вложенных групп и их пользователей. Даты — в вашем часовом поясе.',
    import_hint:
      'Таблица в формате экспорта (.xlsx). Пользователи находятся по id или логину и прикрепляются; новые создаются с выбранной ролью.',
    group: 'Группа',
    domain_type: 'Только группы типа',
    all_types: 'Все типы',
    role: 'Роль новых пользователей',
    no_role: 'Без роли',
    import: 'Импортировать',
    result: 'Прикреплено пользователей: %{attached}, создано: %{created}, строк с ошибками: %{errors}',
    row: 'Строка',
    field: 'Столбец',
    error: 'Ошибка',
  },
};
